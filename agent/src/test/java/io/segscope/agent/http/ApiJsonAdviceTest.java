package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.advice.Command;
import io.segscope.agent.advice.Finding;
import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.advice.SavingCheck;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** /api/v1/recommendations: the state, the intent that accepted it, and the verified savings. */
class ApiJsonAdviceTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private static Recommendation rec(String rule, String state, String by) {
    DeviceRef d = new DeviceRef(DeviceId.of(4026532301L, 3), "lab-sw", "up0");
    Finding f = new Finding(rule, "warning", d, List.of(d), "summary", Map.of(), rule.equals("wireguard_segmentation")
        ? List.of() : List.of(Command.of("ip", "link", "set", "dev", "up0", "gso_max_size", "65536")), 0.0855,
        "basis", "high", "risk", rule.equals("wireguard_segmentation") ? "WireGuard has no GSO offload" : "");
    return new Recommendation(f.id(), f, T, T.plusSeconds(30), T.plusSeconds(30), state, by);
  }

  @Test
  void recommendationsCarryTheirStateAndTheVerifiedSavings() {
    Recommendation open = rec("gso_size_mismatch", "open", "");
    Recommendation accepted =
        rec("wireguard_segmentation", "accepted", "wireguard_segmentation:*/wg* (--advice-accept)");
    SavingCheck.Measure before = new SavingCheck.Measure(T, T.plusSeconds(30), 10688.7, 0.0855, "measured", 6.96e8);
    SavingCheck.Measure after = new SavingCheck.Measure(T.plusSeconds(90), T.plusSeconds(120), 0, 0, "measured", 7.1e8);
    SavingCheck.Verification v = new SavingCheck.Verification(open, T.plusSeconds(200), before, Optional.of(after),
        "verified", 0.0855);
    SavingCheck.Verification none = new SavingCheck.Verification(open, T.plusSeconds(300), before, Optional.empty(),
        "no_traffic_after", 0);
    JsonObject j = ApiJson.recommendations(List.of(open, accepted), null, List.of(v, none));
    assertThat(j.getJsonArray("recommendations").getJsonObject(0).getString("state")).isEqualTo("open");
    assertThat(j.getJsonArray("recommendations").getJsonObject(0).getString("accepted_by")).isEmpty();
    JsonObject o = j.getJsonArray("recommendations").getJsonObject(0);
    assertThat(o.getJsonArray("commands").getList()).containsExactly("ip link set dev up0 gso_max_size 65536");
    assertThat(o.getJsonArray("argv").getList()).hasSize(1);
    assertThat(o.getJsonArray("argv").getJsonArray(0).getList())
        .containsExactly("ip", "link", "set", "dev", "up0", "gso_max_size", "65536");
    JsonObject a = j.getJsonArray("recommendations").getJsonObject(1);
    assertThat(a.getString("state")).isEqualTo("accepted");
    assertThat(a.getString("accepted_by")).isEqualTo("wireguard_segmentation:*/wg* (--advice-accept)");
    assertThat(a.getJsonArray("commands")).isEmpty();
    assertThat(a.getJsonArray("argv")).as("argv beside commands, empty alike").isEmpty();
    assertThat(a.getString("explanation")).isEqualTo("WireGuard has no GSO offload");
    JsonObject s = j.getJsonArray("verified_savings").getJsonObject(0);
    assertThat(s.getString("id")).isEqualTo(open.id());
    assertThat(s.getString("verdict")).isEqualTo("verified");
    assertThat(s.getDouble("saving_cores")).isEqualTo(0.0855);
    assertThat(s.getString("traffic_unit")).isEqualTo("bytes/s");
    assertThat(s.getDouble("traffic_ratio")).isCloseTo(7.1e8 / 6.96e8, Assertions.within(1e-9));
    assertThat(s.getJsonObject("before").getDouble("cpu_cores")).isEqualTo(0.0855);
    assertThat(s.getJsonObject("before").getString("from")).isEqualTo(T.toString());
    assertThat(s.getJsonObject("after").getDouble("software_per_sec")).isZero();
    JsonObject n = j.getJsonArray("verified_savings").getJsonObject(1);
    assertThat(n.getString("verdict")).isEqualTo("no_traffic_after");
    assertThat(n.containsKey("after")).isFalse();
    assertThat(n.getValue("traffic_ratio")).as("no ratio without an after window").isNull();
  }
}
