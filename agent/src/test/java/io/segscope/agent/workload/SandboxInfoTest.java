package io.segscope.agent.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxInfoTest {
  @Test
  void containerds1_6VerboseInfoGivesTheNetnsPathAndThePid() throws Exception {
    // recorded from Debian 12's containerd 1.6.20 (PodSandboxStatus, verbose=true)
    String json;
    try (InputStream in = getClass().getResourceAsStream("/cri/containerd-1.6.20-sandbox-info.json")) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    SandboxInfo i = SandboxInfo.parse(Map.of("info", json));
    assertThat(i.netnsPath()).contains(
        "/tmp/ctrx/state/io.containerd.grpc.v1.cri/netns/cni-9e412fce-ffaf-48e4-c2bd-0b5ccb4dffd5");
    assertThat(i.pid()).hasValue(15793);
    assertThat(i.netnsClosed()).isFalse();
  }

  @Test
  void criOShapedInfoAndAHostNetworkSpecWithoutAPath() {
    SandboxInfo crio = SandboxInfo.parse(Map.of("info", "{\"pid\": 77, \"runtimeSpec\": {\"linux\": {\"namespaces\": ["
        + "{\"type\": \"ipc\", \"path\": \"/var/run/ipcns/x\"}, {\"type\": \"network\", \"path\": \"/var/run/netns/a1b2\"}]}}}"));
    assertThat(crio.netnsPath()).contains("/var/run/netns/a1b2");
    assertThat(crio.pid()).hasValue(77);
    SandboxInfo host = SandboxInfo.parse(Map.of("info", "{\"pid\": 5, \"runtimeSpec\": {\"linux\": {\"namespaces\": ["
        + "{\"type\": \"pid\"}]}}, \"netNamespaceClosed\": true}"));
    assertThat(host.netnsPath()).isEmpty();
    assertThat(host.netnsClosed()).isTrue();
  }

  @Test
  void missingOrOddInfoIsNoInfoAndBadJsonSaysSo() {
    assertThat(SandboxInfo.parse(Map.of())).isEqualTo(SandboxInfo.none());
    assertThat(SandboxInfo.parse(Map.of("info", "  "))).isEqualTo(SandboxInfo.none());
    assertThat(SandboxInfo.parse(Map.of("info", "{\"pid\": \"x\", \"runtimeSpec\": 3}")).pid()).isEmpty();
    assertThat(SandboxInfo.parse(Map.of("info", "{\"pid\": 0}")).pid()).as("0 is no pid").isEmpty();
    assertThatThrownBy(() -> SandboxInfo.parse(Map.of("info", "{not json")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("sandbox info is not JSON");
    assertThatThrownBy(() -> SandboxInfo.parse(Map.of("info", "[" + " ".repeat(SandboxInfo.MAX_INFO_CHARS) + "]")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than");
  }
}
