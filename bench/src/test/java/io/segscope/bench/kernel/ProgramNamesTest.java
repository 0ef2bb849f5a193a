package io.segscope.bench.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgramNamesTest {
  /** bpftool 7.1 -j prog show, trimmed, as recorded with the agent running. */
  static final String BPFTOOL = """
      [{"id":2123,"type":"tracing","name":"tp_btf__net_dev","tag":"21586ab496028cbb"},
       {"id":2125,"type":"tracing","name":"tp_btf__consume","tag":"f67ff1a1fdc4b25a"},
       {"id":2127,"type":"tracing","name":"tp_btf__netif_r"},
       {"id":3000,"type":"tracing","name":"tp_btf__consume"}]
      """;

  @Test
  void theKernelKeepsFifteenCharacters() {
    assertThat(ProgramNames.kernelName("tp_btf__net_dev_queue")).isEqualTo("tp_btf__net_dev");
    assertThat(ProgramNames.kernelName("tp__kfree_skb")).isEqualTo("tp__kfree_skb");
    assertThat(ProgramNames.parse(BPFTOOL)).containsEntry(2123, "tp_btf__net_dev").hasSize(4);
  }

  @Test
  void onlyTheProcesssOwnProgramsAreMatchedToFunctions() {
    List<BpfFdinfo.Program> held = List.of(new BpfFdinfo.Program(2123, 26, 10, 1), new BpfFdinfo.Program(2125, 26, 20,
        2), new BpfFdinfo.Program(4000, 26, 0, 0));
    Map<String, BpfFdinfo.Program> m = ProgramNames.match(List.of("tp_btf__net_dev_queue", "tp_btf__consume_skb",
        "tp_btf__qdisc_dequeue"), held, ProgramNames.parse(BPFTOOL));
    // program 3000 has the same name but another process holds it; 4000 is unnamed; qdisc_dequeue not loaded
    assertThat(m).containsOnlyKeys("tp_btf__net_dev_queue", "tp_btf__consume_skb");
    assertThat(m.get("tp_btf__consume_skb").id()).isEqualTo(2125);
  }

  @Test
  void functionsThatTheKernelCannotTellApartAreRefused() {
    assertThatThrownBy(() -> ProgramNames.match(List.of("tp_btf__net_dev_queue", "tp_btf__net_dev_xmit"), List.of(),
        Map.of())).hasMessageContaining("share the kernel name tp_btf__net_dev");
  }
}
