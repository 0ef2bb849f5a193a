package io.segscope.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.segscope.agent.workload.PodNode;
import io.segscope.exporters.model.DeviceWorkload;
import io.segscope.exporters.model.NetnsInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.exporters.model.WorkloadInfo;
import org.junit.jupiter.api.Test;

class WorkloadViewTest {
  @Test
  void everyNamespaceAndEveryDeviceOfTheInventoryGetsItsWorkload() {
    Counter errors = new SimpleMeterRegistry().counter("errors");
    TelemetrySnapshot s = WorkloadView.attach(TelemetrySnapshot.empty(), PodNode.inventory(), PodNode.workloads(),
        errors);
    WorkloadInfo pod = new WorkloadInfo("pod", "shop/web-0", "web-0", "shop", "6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10",
        "a3f0c9d2e1b4");
    assertThat(s.namespaces()).containsExactly(new NetnsInfo(PodNode.HOST, "", WorkloadInfo.host()),
        new NetnsInfo(PodNode.POD, "cni-1b2c", pod));
    assertThat(s.deviceWorkloads())
        .extracting(d -> d.device().device() + "@" + d.workloadNetns() + "=" + d.workload().name())
        .containsExactly("eth0@" + PodNode.HOST + "=host", "cni0@" + PodNode.HOST + "=host",
            "veth1b2c@" + PodNode.POD + "=shop/web-0", "eth0@" + PodNode.POD + "=shop/web-0");
    assertThat(s.deviceWorkloads()).allMatch(d -> d instanceof DeviceWorkload);
    assertThat(errors.count()).isZero();
  }
}
