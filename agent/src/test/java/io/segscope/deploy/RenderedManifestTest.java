package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.lab.Tools;
import io.segscope.lab.containerd.criv1.ContainerConfig;
import io.segscope.lab.containerd.criv1.MountPropagation;
import io.segscope.testkit.deploy.AgentPod;
import io.segscope.testkit.deploy.RenderedManifest;
import io.segscope.testkit.deploy.RepoFiles;
import io.segscope.testkit.deploy.Tree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rendering of deploy/kubernetes and the kubelet's reading of its DaemonSet that ContainerImageIT runs. */
class RenderedManifestTest {
  @Test
  void theRenderingHereEqualsKubectlsWhereKubectlIsInstalled() {
    RenderedManifest here = RenderedManifest.renderHere(RepoFiles.path(RenderedManifest.DIR));
    assertThat(Tree.str(here.kind("DaemonSet"), "kind")).isEqualTo("DaemonSet");
    assertThat(here.documents()).extracting(d -> d.get("kind")).containsExactly("Namespace", "ServiceAccount",
        "DaemonSet", "Service", "ServiceMonitor", "PrometheusRule");
    assertThat(Tree.str(Tree.maps(here.kind("DaemonSet"), "spec.template.spec.containers").get(0), "image"))
        .isEqualTo("registry.example.com/segscope:0.1.0");
    Optional<Path> kubectl = Tools.find("kubectl");
    if (kubectl.isPresent()) {
      RenderedManifest k = RenderedManifest.renderWithKubectl(kubectl.get());
      for (String kind : List.of("DaemonSet", "ServiceMonitor", "PrometheusRule", "Service")) {
        assertThat(here.kind(kind)).as("%s rendered here vs by kubectl", kind).isEqualTo(k.kind(kind));
      }
    }
  }

  @Test
  void aKustomizationFieldNotRenderedHereIsRefusedNotIgnored(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("kustomization.yaml"), "resources: []\nnamePrefix: x-\n");
    assertThatThrownBy(() -> RenderedManifest.renderHere(dir))
        .hasMessageContaining("kustomization field 'namePrefix' is not rendered here");
  }

  @Test
  void kustomizesImageTransformerSetsNameAndTag() {
    List<Map<String, Object>> images = List.of(Map.of("name", "segscope", "newName", "r.example/s", "newTag", "1"));
    assertThat(RenderedManifest.image("segscope", images)).isEqualTo("r.example/s:1");
    assertThat(RenderedManifest.image("segscope:old", images)).isEqualTo("r.example/s:1");
    assertThat(RenderedManifest.image("other:2", images)).isEqualTo("other:2");
    assertThat(RenderedManifest.image("localhost:5000/segscope", images)).isEqualTo("localhost:5000/segscope");
  }

  @Test
  void theKubeletsContainerConfigOfTheDaemonSet() {
    AgentPod pod = AgentPod.of(RenderedManifest.renderHere(RepoFiles.path(RenderedManifest.DIR)));
    assertThat(pod.hostNetwork()).isTrue();
    assertThat(pod.hostPid()).isTrue();
    assertThat(pod.terminationGraceSeconds()).isEqualTo(30);
    ContainerConfig c = pod.containerConfig("img", Map.of("status.hostIP", "198.18.0.9"), h -> "/node" + h,
        v -> "/empty/" + v, "c.log", List.of());
    assertThat(c.getCommandList()).as("no command: the image's ENTRYPOINT stays").isEmpty();
    assertThat(c.getArgsList()).containsExactly("run", "--listen", "198.18.0.9:9810");
    assertThat(c.getEnvsList()).extracting(e -> e.getKey() + "=" + e.getValue())
        .containsExactly("NODE_IP=198.18.0.9", "SEGSCOPE_LOG_LEVEL=INFO", "MALLOC_ARENA_MAX=2");
    var sc = c.getLinux().getSecurityContext();
    assertThat(sc.getCapabilities().getDropCapabilitiesList()).containsExactly("ALL");
    assertThat(sc.getCapabilities().getAddCapabilitiesList()).containsExactlyInAnyOrderElementsOf(
        KubernetesManifestsTest.CAPABILITIES);
    assertThat(sc.getReadonlyRootfs()).isTrue();
    assertThat(sc.getPrivileged()).isFalse();
    assertThat(sc.getRunAsUser().getValue()).isZero();
    var r = c.getLinux().getResources();
    assertThat(r.getCpuShares()).as("100m requested: 1024 * 100 / 1000").isEqualTo(102);
    assertThat(r.getCpuQuota()).as("1 CPU limit over a 100 ms period").isEqualTo(100_000);
    assertThat(r.getCpuPeriod()).isEqualTo(100_000);
    assertThat(r.getMemoryLimitInBytes()).isEqualTo(512L * 1024 * 1024);
    assertThat(c.getMountsList()).extracting(m -> m.getContainerPath() + " " + m.getHostPath() + " "
        + (m.getReadonly() ? "ro" : "rw")).containsExactly(
            "/sys/kernel/tracing /node/sys/kernel/tracing ro", "/lib/modules /node/lib/modules ro",
            "/usr/src /node/usr/src ro", "/run/netns /node/run/netns ro",
            "/run/containerd/containerd.sock /node/run/containerd/containerd.sock ro", "/tmp /empty/tmp rw",
            "/var/tmp /empty/var-tmp rw", "/var/cache /empty/cache rw");
    assertThat(c.getMounts(3).getPropagation()).isEqualTo(MountPropagation.PROPAGATION_HOST_TO_CONTAINER);
    assertThat(pod.probe("readinessProbe")).isEqualTo(new AgentPod.Probe("/readyz", 9810, 10, 5, 3));
    assertThat(pod.probe("startupProbe")).isEqualTo(new AgentPod.Probe("/healthz", 9810, 5, 3, 36));
  }

  @Test
  void argsExpandLikeTheKubelet() {
    Map<String, String> env = Map.of("A", "x");
    assertThat(AgentPod.expand("$(A):1", env)).isEqualTo("x:1");
    assertThat(AgentPod.expand("$$(A) $(B)", env)).as("escaped, and unknown left as is").isEqualTo("$(A) $(B)");
  }
}
