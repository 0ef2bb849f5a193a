package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Netns;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class NetnsCommandsTest {
  @Test
  void aNamespaceUnderRunNetnsIsReachedByName() {
    Netns ns = new Netns(4026532301L, "lab-snd", Path.of("/run/netns/lab-snd"), false);
    assertThat(NetnsCommands.ipLinkSet(ns, "snd0", List.of("gso_max_size", "16384")).argv())
        .containsExactly("ip", "-n", "lab-snd", "link", "set", "dev", "snd0", "gso_max_size", "16384");
    assertThat(NetnsCommands.ethtoolK(ns, "snd0", List.of("tso", "on")).argv())
        .containsExactly("ip", "netns", "exec", "lab-snd", "ethtool", "-K", "snd0", "tso", "on");
  }

  @Test
  void aNamespaceNamedFromAnotherDirectoryIsReachedByItsPathNotByAnameIpCannotFind() {
    // containerd's CRI plugin keeps pod namespaces under its own state directory: "ip -n cni-9e41"
    // would look in /run/netns and fail
    Path p = Path.of("/var/lib/containerd-state/io.containerd.grpc.v1.cri/netns/cni-9e41");
    Netns ns = new Netns(4026532302L, "cni-9e41", p, false);
    assertThat(NetnsCommands.ipLinkSet(ns, "eth0", List.of("gso_max_size", "16384")).argv())
        .containsExactly("nsenter", "--net=" + p, "--", "ip", "link", "set", "dev", "eth0", "gso_max_size", "16384");
    assertThat(NetnsCommands.ethtoolK(ns, "eth0", List.of("tso", "on")).argv())
        .containsExactly("nsenter", "--net=" + p, "--", "ethtool", "-K", "eth0", "tso", "on");
  }
}
