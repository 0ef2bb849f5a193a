package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.DeviceWorkload;
import io.segscope.exporters.model.NetnsInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.WorkloadInfo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WorkloadFamiliesTest {
  private static final WorkloadInfo POD = new WorkloadInfo("pod", "shop/web-0", "web-0", "shop",
      "6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10", "a3f0c9d2e1b4a3f0c9d2e1b4a3f0c9d2e1b4a3f0c9d2e1b4a3f0c9d2e1b4a3f0");

  private static String scrape(TelemetrySnapshot s, String accept) throws Exception {
    try (MetricsRegistry r = new MetricsRegistry(() -> s)) {
      return new String(r.scrape(accept).body(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void namespacesAndDevicesCarryTheirWorkloadOnTheirOwnInfoSeries() throws Exception {
    TelemetrySnapshot s = TelemetrySnapshot.builder().takenAt(Instant.EPOCH)
        .addNamespace(new NetnsInfo(4026531840L, "", WorkloadInfo.host()))
        .addNamespace(new NetnsInfo(4026532901L, "cni-1b2c", POD))
        .addDeviceWorkload(
            new DeviceWorkload(new DeviceRef(DeviceId.of(4026531840L, 7), "", "veth1b2c3d4e"), 4026532901L, POD))
        .addDeviceWorkload(new DeviceWorkload(new DeviceRef(DeviceId.of(4026531840L, 2), "", "eth0"), 4026531840L,
            WorkloadInfo.host()))
        .build();
    String text = scrape(s, "text/plain");
    assertThat(text)
        .contains("segscope_netns_info{container=\"\",netns=\"4026531840\",netns_name=\"\",pod=\"\",pod_namespace=\"\","
            + "pod_uid=\"\",workload=\"host\",workload_kind=\"host\"} 1")
        .contains("segscope_netns_info{container=\"" + POD.container() + "\",netns=\"4026532901\","
            + "netns_name=\"cni-1b2c\",pod=\"web-0\",pod_namespace=\"shop\",pod_uid=\"" + POD.podUid() + "\","
            + "workload=\"shop/web-0\",workload_kind=\"pod\"} 1")
        .contains("segscope_device_workload_info{container=\"" + POD.container() + "\",device=\"veth1b2c3d4e\","
            + "netns=\"4026531840\",pod=\"web-0\",pod_namespace=\"shop\",pod_uid=\"" + POD.podUid() + "\","
            + "workload=\"shop/web-0\",workload_kind=\"pod\",workload_netns=\"4026532901\"} 1")
        .contains("segscope_device_workload_info{container=\"\",device=\"eth0\",netns=\"4026531840\",pod=\"\","
            + "pod_namespace=\"\",pod_uid=\"\",workload=\"host\",workload_kind=\"host\",workload_netns=\"4026531840\"} 1");
    assertThat(scrape(s, "application/openmetrics-text"))
        .contains("# TYPE segscope_netns info\n")
        .contains("# TYPE segscope_device_workload info\n");
  }

  @Test
  void hostileNamesAreLabelValuesEscapedAsData() throws Exception {
    WorkloadInfo proc = new WorkloadInfo("process", "$(reboot)\";poweroff\n\\", "", "", "", "");
    String text = scrape(TelemetrySnapshot.builder().takenAt(Instant.EPOCH)
        .addNamespace(new NetnsInfo(4026532950L, "a'b\"c", proc)).build(), "text/plain");
    assertThat(text).contains("netns_name=\"a'b\\\"c\"")
        .contains("workload=\"$(reboot)\\\";poweroff\\n\\\\\"");
  }

  @Test
  void aDuplicateNamespaceIsSkippedAndCountedNotFatal() throws Exception {
    TelemetrySnapshot s = TelemetrySnapshot.builder().takenAt(Instant.EPOCH)
        .addNamespace(new NetnsInfo(4026532901L, "x", POD))
        .addNamespace(new NetnsInfo(4026532901L, "x", POD))
        .build();
    try (MetricsRegistry r = new MetricsRegistry(() -> s)) {
      r.scrape("text/plain");
      String text = new String(r.scrape("text/plain").body(), StandardCharsets.UTF_8);
      assertThat(text).containsOnlyOnce("segscope_netns_info{")
          .containsPattern("segscope_exporter_errors_total\\{kind=\"netns\"} [1-9]")
          .contains("segscope_exporter_errors_total{kind=\"device_workload\"} 0.0");
    }
  }
}
