package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.advice.Command;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.PodNode;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApiJsonWorkloadTest {
  @Test
  void namespacesAndDevicesCarryTheirWorkload() {
    JsonObject doc = ApiJson.devices(PodNode.inventory(), List.of(), d -> true, PodNode.workloads());
    JsonObject podNs = doc.getJsonArray("namespaces").getJsonObject(1);
    assertThat(podNs.getLong("netns")).isEqualTo(PodNode.POD);
    assertThat(podNs.getJsonObject("workload").getMap()).containsEntry("kind", "pod").containsEntry("pod", "web-0")
        .containsEntry("pod_namespace", "shop").containsEntry("pod_uid", "6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10")
        .containsEntry("container", "a3f0c9d2e1b4").containsEntry("runtime", "containerd")
        .containsEntry("source", "cri")
        .doesNotContainKey("pid");
    assertThat(doc.getJsonArray("namespaces").getJsonObject(0).getJsonObject("workload").getString("kind"))
        .isEqualTo("host");
    JsonObject hostVeth = device(doc, PodNode.HOST, "veth1b2c");
    assertThat(hostVeth.getJsonObject("workload").getString("pod")).isEqualTo("web-0");
    assertThat(hostVeth.getJsonObject("workload").getString("via")).isEqualTo("link");
    assertThat(hostVeth.getJsonObject("workload").getLong("netns")).isEqualTo(PodNode.POD);
    assertThat(device(doc, PodNode.POD, "eth0").getJsonObject("workload").getString("via")).isEqualTo("netns");
    assertThat(device(doc, PodNode.HOST, "cni0").getJsonObject("workload").getString("kind")).isEqualTo("host");
  }

  @Test
  void theRecommendationsSubjectAndDevicesNameTheirPods() {
    DeviceRef subject = new DeviceRef(DeviceId.of(PodNode.HOST, 10), "", "veth1b2c");
    DeviceRef fix = new DeviceRef(DeviceId.of(PodNode.POD, 2), "cni-1b2c", "eth0");
    Finding f = new Finding("gso_size_mismatch", "warning", subject, List.of(subject, fix), "summary", Map.of(),
        List.of(Command.of("nsenter", "--net=/run/netns/cni-1b2c", "--", "ip", "link", "set", "dev", "eth0",
            "gso_max_size", "16384")),
        0.01, "basis", "high",
        "risk");
    Instant t = Instant.parse("2026-12-01T10:00:00Z");
    JsonObject r = ApiJson.recommendations(List.of(new Recommendation(f.id(), f, t, t, t)),
        new DeviceWorkloads(PodNode.inventory(), PodNode.workloads())).getJsonArray("recommendations").getJsonObject(0);
    assertThat(r.getJsonObject("subject").getJsonObject("workload").getString("name")).isEqualTo("shop/web-0");
    assertThat(r.getJsonArray("devices").getJsonObject(1).getJsonObject("workload").getString("pod"))
        .isEqualTo("web-0");
    assertThat(ApiJson.recommendations(List.of(new Recommendation(f.id(), f, t, t, t))).getJsonArray("recommendations")
        .getJsonObject(0).getJsonObject("subject").containsKey("workload")).isFalse();
  }

  private static JsonObject device(JsonObject doc, long netns, String name) {
    for (int i = 0; i < doc.getJsonArray("devices").size(); i++) {
      JsonObject d = doc.getJsonArray("devices").getJsonObject(i);
      if (d.getLong("netns") == netns && d.getString("name").equals(name)) {
        return d;
      }
    }
    throw new AssertionError("no device " + netns + "/" + name + " in " + doc.encodePrettily());
  }
}
