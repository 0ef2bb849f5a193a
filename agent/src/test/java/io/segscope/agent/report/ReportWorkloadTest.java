package io.segscope.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.PodNode;
import io.segscope.agent.workload.Workload;
import io.segscope.agent.workload.WorkloadKind;
import io.segscope.device.DeviceId;
import org.junit.jupiter.api.Test;

class ReportWorkloadTest {
  @Test
  void eachDeviceSaysWhichWorkloadItServes() {
    DeviceWorkloads served = new DeviceWorkloads(PodNode.inventory(), PodNode.workloads());
    assertThat(ReportRenderer.describe(served.served(DeviceId.of(PodNode.HOST, 10))))
        .isEqualTo("pod shop/web-0 (uid 6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10), through its link to netns "
            + PodNode.POD);
    assertThat(ReportRenderer.describe(served.served(DeviceId.of(PodNode.POD, 2))))
        .isEqualTo("pod shop/web-0 (uid 6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10)");
    assertThat(ReportRenderer.describe(served.served(DeviceId.of(PodNode.HOST, 2)))).isEqualTo("the host");
    assertThat(ReportRenderer.describe(new DeviceWorkloads.Served(5, new Workload(WorkloadKind.PROCESS, "iperf3", "",
        "", "", "", "", "", "iperf3", 4242, "process"), false))).isEqualTo("process iperf3 (pid 4242)");
  }
}
