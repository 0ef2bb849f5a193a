package io.segscope.agent.advice;

import static io.segscope.agent.advice.LabInventories.SWITCH;
import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.report.ReportRenderer;
import io.segscope.host.names.NameCodec;
import io.segscope.vocabulary.Cause;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The terminal report shows tenant-chosen names in display form and commands quoted. */
class ReportNamesTest {

  @Test
  void controlBytesInNamesNeverReachTheTerminalAndCommandsAreQuoted() {
    // the uplink at its cap: the command changes the sender, whose name is hostile too
    Inventory base = LabInventories.capped(LabInventories.s1(16384, "lab-snd"), SWITCH, 3);
    List<Device> devices = new ArrayList<>();
    for (Device d : base.devices()) {
      String name = d.name().equals("up0") ? "e\u001b[31m" : d.name().equals("snd0") ? "$(touch${IFS}c)\u2028"
          : d.name();
      Link l = d.link();
      devices.add(new Device(d.netns(), d.netnsName(), new Link(l.ifindex(), name, l.kind(), l.slaveKind(), l.mtu(),
          l.link(), l.master(), l.linkNetnsId(), l.gsoMaxSize(), l.gsoMaxSegs(), l.tsoMaxSize(), l.tsoMaxSegs(),
          l.groMaxSize(), l.gsoIpv4MaxSize(), l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(),
          l.txQueueLength(), l.flags(), l.vxlanLink()), d.features()));
    }
    Inventory inv = new Inventory(base.namespaces(), devices, Map.of(
        LabInventories.SENDER, base.nsids(LabInventories.SENDER), SWITCH, base.nsids(SWITCH),
        LabInventories.RECEIVER, base.nsids(LabInventories.RECEIVER)), base.readAt());
    var costs = Costs.window(Costs.gso(SWITCH, 3, "e\u001b[31m", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0));
    List<Finding> findings = new Recommender().evaluate(costs, new AdviceContext(inv, AdviceContext.Thresholds.DEFAULT,
        true));
    assertThat(findings).hasSize(1);
    String report = ReportRenderer.render(new ReportRenderer.Input("6.18", "tracepoint", "tracepoint", 3, costs, inv,
        findings));
    assertThat(report.codePoints().filter(c -> c != '\n' && !NameCodec.isPrintable(c)).count())
        .as("raw control or separator characters in the report").isZero();
    assertThat(report).contains("== e\\x1b[31m (netns " + SWITCH + ", ifindex 3)")
        .contains("lab-sw/e\\x1b[31m segments")
        .contains(
            "    ip -n lab-snd link set dev '$(touch${IFS}c)'\"$(printf '\\342\\200\\250')\" gso_max_size 16384\n");
  }
}
