package io.segscope.agent.telemetry;

import io.micrometer.core.instrument.Counter;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.Workloads;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.DeviceWorkload;
import io.segscope.exporters.model.NetnsInfo;
import io.segscope.exporters.model.TelemetrySnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/** Puts each namespace's and each device's workload into a snapshot, from the inventory. Pure but for logging. */
final class WorkloadView {
  private static final Logger LOG = Logger.getLogger(WorkloadView.class.getName());

  private WorkloadView() {}

  static TelemetrySnapshot attach(TelemetrySnapshot s, Inventory inv, Workloads workloads, Counter errors) {
    DeviceWorkloads served = new DeviceWorkloads(inv, workloads);
    List<NetnsInfo> namespaces = new ArrayList<>();
    for (Netns n : inv.namespaces()) {
      try {
        namespaces.add(new NetnsInfo(n.inode(), n.name(), workloads.of(n).info()));
      } catch (RuntimeException e) {
        errors.increment();
        LOG.warning("export namespace " + n.inode() + ": " + e.getMessage());
      }
    }
    List<DeviceWorkload> devices = new ArrayList<>();
    for (Device d : inv.devices()) {
      try {
        DeviceWorkloads.Served w = served.served(d);
        devices.add(new DeviceWorkload(new DeviceRef(d.id(), d.netnsName(), d.name()), w.netns(),
            w.workload().info()));
      } catch (RuntimeException e) {
        errors.increment();
        LOG.warning("export workload of device " + d.netns() + "/" + d.name() + ": " + e.getMessage());
      }
    }
    return s.withWorkloads(namespaces, devices);
  }
}
