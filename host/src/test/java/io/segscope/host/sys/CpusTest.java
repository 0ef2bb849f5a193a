package io.segscope.host.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpusTest {

  @Test
  void countsContiguousAndSplitCpuLists() {
    assertThat(Cpus.countList("0-1\n")).isEqualTo(2);
    assertThat(Cpus.countList("0")).isEqualTo(1);
    assertThat(Cpus.countList("0,2-3")).isEqualTo(3);
    assertThat(Cpus.countList("0-3,8-11")).isEqualTo(8);
    assertThat(Cpus.countList("0-127")).isEqualTo(128);
  }

  @Test
  void rejectsMalformedCpuListsNamingTheBadPart() {
    assertThatThrownBy(() -> Cpus.countList("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> Cpus.countList("3-1")).hasMessageContaining("bad range '3-1'");
    assertThatThrownBy(() -> Cpus.countList("0-x")).hasMessageContaining("bad range '0-x'");
    assertThatThrownBy(() -> Cpus.countList("0-1-2")).hasMessageContaining("bad range '0-1-2'");
    assertThatThrownBy(() -> Cpus.countList("0,,2")).hasMessageContaining("bad range ''");
  }

  @Test
  void possibleCpusCoverAtLeastTheCpusTheJvmMaySee() {
    assertThat(Cpus.possible()).isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors());
  }
}
