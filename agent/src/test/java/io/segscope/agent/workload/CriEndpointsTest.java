package io.segscope.agent.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CriEndpointsTest {
  @TempDir
  Path dir;

  @Test
  void withoutFlagsTheDefaultSocketsThatExistAreAsked() throws Exception {
    Path present = Files.createFile(dir.resolve("containerd.sock"));
    CriEndpoints e = new CriEndpoints(List.of(), false, List.of(dir.resolve("crio.sock"), present));
    assertThat(e.current()).containsExactly(present);
    assertThat(CriEndpoints.parse(List.of())).isEqualTo(CriEndpoints.defaults());
    assertThat(CriEndpoints.defaults().candidates()).contains(Path.of("/run/containerd/containerd.sock"),
        Path.of("/run/crio/crio.sock"));
  }

  @Test
  void explicitSocketsAreAskedWhetherTheyExistOrNotAndUnixUrlsAreAccepted() {
    CriEndpoints e = CriEndpoints.parse(List.of("unix:///run/containerd/containerd.sock", "/var/run/crio/crio.sock",
        "/run/containerd/containerd.sock"));
    assertThat(e.current()).containsExactly(Path.of("/run/containerd/containerd.sock"),
        Path.of("/var/run/crio/crio.sock"));
    assertThat(CriEndpoints.parse(List.of("none")).current()).isEmpty();
  }

  @Test
  void badValuesSayWhatIsExpected() {
    assertThatThrownBy(() -> CriEndpoints.parse(List.of("containerd.sock")))
        .hasMessage("--cri-endpoint 'containerd.sock': expected an absolute socket path or unix:///path (or none)");
    assertThatThrownBy(() -> CriEndpoints.parse(List.of("tcp://10.0.0.1:1234"))).hasMessageContaining("absolute");
    assertThatThrownBy(() -> CriEndpoints.parse(List.of("unix://"))).hasMessageContaining("absolute");
    assertThatThrownBy(() -> CriEndpoints.parse(List.of("none", "/run/x.sock")))
        .hasMessage("--cri-endpoint none cannot be combined with other endpoints");
  }

  @Test
  void theRuntimeIsNamedFromTheSocketPath() {
    assertThat(CriEndpoints.runtimeOf(Path.of("/run/crio/crio.sock"))).isEqualTo("cri-o");
    assertThat(CriEndpoints.runtimeOf(Path.of("/run/k3s/containerd/containerd.sock"))).isEqualTo("containerd");
    assertThat(CriEndpoints.runtimeOf(Path.of("/run/cri-dockerd.sock"))).isEmpty();
  }
}
