package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.DeviceLimit;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.RecommendationInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.VerifiedSaving;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class DeviceAndAdviceFamiliesTest {

  private static String scrape(TelemetrySnapshot s) throws Exception {
    try (MetricsRegistry r = new MetricsRegistry(() -> s)) {
      return new String(r.scrape("text/plain").body(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void devicesExportInfoPresentLimitsAndFeatures() throws Exception {
    Map<DeviceLimit, Long> limits = new EnumMap<>(DeviceLimit.class);
    limits.put(DeviceLimit.GSO_MAX_SIZE, 16384L);
    limits.put(DeviceLimit.MTU, 1500L);
    DeviceInfo up = new DeviceInfo(new DeviceRef(DeviceId.of(4026532301L, 3), "lab-sw", "up0"), "veth", "br0", "rcv0",
        "4026532302", "none", limits,
        Map.of("tx-tcp-segmentation", new DeviceInfo.Feature(true, false),
            "tx-checksum-ipv4", new DeviceInfo.Feature(false, true)));
    String text = scrape(TelemetrySnapshot.builder().takenAt(Instant.EPOCH).addDevice(up).build());
    assertThat(text)
        .contains("segscope_device_info{device=\"up0\",ifindex=\"3\",kind=\"veth\",link=\"rcv0\","
            + "link_netns=\"4026532302\",master=\"br0\",netns=\"4026532301\",netns_name=\"lab-sw\",xdp_mode=\"none\"} 1")
        .contains("segscope_device_gso_max_size_bytes{device=\"up0\",netns=\"4026532301\"} 16384.0")
        .contains("segscope_device_mtu_bytes{device=\"up0\",netns=\"4026532301\"} 1500.0")
        .contains("segscope_device_feature_active{device=\"up0\",feature=\"tx-tcp-segmentation\",fixed=\"false\","
            + "netns=\"4026532301\"} 1.0")
        .contains("segscope_device_feature_active{device=\"up0\",feature=\"tx-checksum-ipv4\",fixed=\"true\","
            + "netns=\"4026532301\"} 0.0");
    assertThat(text).as("a limit the kernel did not report is absent, not 0")
        .doesNotContain("segscope_device_tso_max_size_bytes{");
  }

  @Test
  void recommendationsExportInfoAndSaving() throws Exception {
    RecommendationInfo r = new RecommendationInfo("gso_size_mismatch-0123456789ab", "gso_size_mismatch", "warning",
        new DeviceRef(DeviceId.of(4026532301L, 3), "lab-sw", "up0"), 0.085);
    String text = scrape(TelemetrySnapshot.builder().takenAt(Instant.EPOCH).addRecommendation(r).build());
    assertThat(text)
        .contains("segscope_recommendation_info{device=\"up0\",id=\"gso_size_mismatch-0123456789ab\","
            + "netns=\"4026532301\",rule=\"gso_size_mismatch\",severity=\"warning\",state=\"open\"} 1")
        .contains("segscope_recommendation_cpu_saving_ratio{device=\"up0\",id=\"gso_size_mismatch-0123456789ab\","
            + "netns=\"4026532301\",rule=\"gso_size_mismatch\",state=\"open\"} 0.085");
  }

  @Test
  void acceptedRecommendationsAndVerifiedSavingsExport() throws Exception {
    DeviceRef up = new DeviceRef(DeviceId.of(4026532301L, 3), "lab-sw", "up0");
    DeviceRef vx = new DeviceRef(DeviceId.of(4026531840L, 7), "", "vxlan.calico");
    TelemetrySnapshot s = TelemetrySnapshot.builder().takenAt(Instant.EPOCH)
        .addRecommendation(new RecommendationInfo("offload_disabled-aaaaaaaaaaaa", "offload_disabled", "warning", vx,
            0.02, "accepted"))
        .addVerifiedSaving(new VerifiedSaving("gso_size_mismatch-0123456789ab",
            "gso_size_mismatch", up, "open", "verified", 0.0855))
        .addVerifiedSaving(new VerifiedSaving("generic_xdp_copy-0123456789ab",
            "generic_xdp_copy", up, "open", "traffic_changed", 0))
        .build();
    String text = scrape(s);
    assertThat(text)
        .contains("segscope_recommendation_info{device=\"vxlan.calico\",id=\"offload_disabled-aaaaaaaaaaaa\","
            + "netns=\"4026531840\",rule=\"offload_disabled\",severity=\"warning\",state=\"accepted\"} 1")
        .contains("segscope_recommendation_verified_saving_cores{device=\"up0\",id=\"gso_size_mismatch-0123456789ab\","
            + "netns=\"4026532301\",rule=\"gso_size_mismatch\",state=\"open\"} 0.0855")
        .contains("segscope_recommendation_verification_info{device=\"up0\",id=\"gso_size_mismatch-0123456789ab\","
            + "netns=\"4026532301\",rule=\"gso_size_mismatch\",state=\"open\",verdict=\"verified\"} 1")
        .contains("segscope_recommendation_verification_info{device=\"up0\",id=\"generic_xdp_copy-0123456789ab\","
            + "netns=\"4026532301\",rule=\"generic_xdp_copy\",state=\"open\",verdict=\"traffic_changed\"} 1");
    assertThat(text).as("no saving where the traffic was not comparable")
        .doesNotContain("segscope_recommendation_verified_saving_cores{device=\"up0\",id=\"generic_xdp_copy");
    Assertions.assertThatThrownBy(() -> new RecommendationInfo("x", "r", "warning", up, 0, "closed"))
        .hasMessageContaining("state must be one of");
  }
}
