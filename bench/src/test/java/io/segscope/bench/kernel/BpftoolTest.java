package io.segscope.bench.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Output shapes recorded from bpftool v7.1 on the 6.18 development kernel. */
class BpftoolTest {
  @Test
  void programsCarryRunStatisticsWhenCountedAndZeroOtherwise() {
    String json = "[{\"id\":377,\"type\":\"tracepoint\",\"name\":\"tracepoint__net__net_dev_queue\",\"tag\":\"x\","
        + "\"run_time_ns\":10882,\"run_cnt\":34},{\"id\":378,\"type\":\"tracepoint\",\"name\":\"net_dev_queue\"}]";
    Map<Integer, Bpftool.ProgStat> p = Bpftool.parsePrograms(json);
    assertThat(p.get(377)).isEqualTo(new Bpftool.ProgStat(377, "tracepoint__net__net_dev_queue", "tracepoint", 10882, 34));
    assertThat(p.get(378).runCount()).isZero();
  }

  @Test
  void perfShowGivesWhichProcessAttachedWhatWhere() {
    String json = "[{\"pid\":10636,\"fd\":17,\"prog_id\":526,\"fd_type\":\"tracepoint\",\"tracepoint\":\"net_dev_queue\"},"
        + "{\"pid\":10722,\"fd\":9,\"prog_id\":534,\"fd_type\":\"kprobe\",\"func\":\"x\"}]";
    assertThat(Bpftool.parseAttachments(json)).isEqualTo(List.of(new Bpftool.Attachment(10636, 526, "net_dev_queue")));
  }

  @Test
  void unexpectedOutputIsRefused() {
    assertThatThrownBy(() -> Bpftool.parsePrograms("{}")).hasMessageContaining("not a JSON array");
    assertThatThrownBy(() -> Bpftool.parsePrograms("[{\"name\":\"x\"}]")).hasMessageContaining("without id");
  }
}
