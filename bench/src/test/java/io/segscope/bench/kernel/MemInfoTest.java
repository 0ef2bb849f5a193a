package io.segscope.bench.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemInfoTest {
  static final String MEMINFO = """
      MemTotal:       24634900 kB
      MemFree:        10000000 kB
      Slab:             400000 kB
      SReclaimable:     150000 kB
      SUnreclaim:       250000 kB
      VmallocUsed:       60000 kB
      Percpu:            12000 kB
      HugePages_Total:       0
      """;

  @Test
  void readsTheMapRelevantLinesInBytes() {
    MemInfo m = MemInfo.parse(MEMINFO);
    assertThat(m).isEqualTo(new MemInfo(12000L * 1024, 400000L * 1024, 250000L * 1024, 60000L * 1024));
    assertThat(m.mapRelevant()).isEqualTo((12000L + 400000) * 1024);
    MemInfo later = new MemInfo(m.percpu() + 3, m.slab() + 4, m.sunreclaim() + 5, m.vmallocUsed() - 6);
    assertThat(later.minus(m)).isEqualTo(new MemInfo(3, 4, 5, -6));
  }

  @Test
  void aMissingLineIsNamed() {
    assertThatThrownBy(() -> MemInfo.parse("MemTotal: 1 kB\nSlab: 2 kB\n")).hasMessageContaining("no Percpu line");
  }
}
