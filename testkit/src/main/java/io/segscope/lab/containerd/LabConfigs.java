package io.segscope.lab.containerd;

import java.nio.file.Path;

/** The configuration files {@link PrivateContainerd} writes for its containerd and its CNI network. */
final class LabConfigs {
  private LabConfigs() {}

  /** The CNI network of the lab's pods: a bridge, addresses from {@code subnet}. */
  static String cni(Path dir, String subnet) {
    // no gateway address, no masquerading, no port mappings: the bridge plugin adds no iptables rules
    return """
        {"cniVersion": "0.4.0", "name": "segscope-lab", "plugins": [
          {"type": "bridge", "bridge": "cni0", "isGateway": false, "ipMasq": false, "hairpinMode": false,
           "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]], "dataDir": "%s"}}]}
        """.formatted(subnet, dir.resolve("ipam"));
  }

  /** containerd's config: everything under {@code dir}, the CRI plugin with runc and the lab's CNI. */
  static String containerd(Path dir) {
    return """
        version = 2
        root = "%1$s/root"
        state = "%1$s/state"
        [grpc]
          address = "%1$s/containerd.sock"
        [plugins."io.containerd.internal.v1.opt"]
          path = "%1$s/opt"
        [plugins."io.containerd.grpc.v1.cri"]
          sandbox_image = "%2$s"
          # the sandbox refuses the pause container's oom_score_adj (lower than containerd's own)
          restrict_oom_score_adj = true
          # pod namespaces under the state directory, not the host's /run/netns
          netns_mounts_under_state_dir = true
          [plugins."io.containerd.grpc.v1.cri".cni]
            bin_dir = "%3$s"
            conf_dir = "%1$s/net.d"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
            runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            Root = "%1$s/runc"
        """.formatted(dir, PauseImage.NAME, PrivateContainerd.CNI_BIN);
  }
}
