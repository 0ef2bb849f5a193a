package io.segscope.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ProcessUsageTest {
  // a command name with spaces and a ')' inside, as the kernel allows
  private static final String STAT = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0"
      + " 12345 3000000000 70000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
  private static final String STATUS = "Name:\tjava\nVmPeak:\t 3000000 kB\nVmRSS:\t  270000 kB\nThreads:\t30\n";

  @Test
  void readsUtimeStimeAfterTheLastParenthesisAndVmRss() {
    ProcessUsage u = ProcessUsage.parse(STAT, STATUS, 0);
    assertThat(u.rssBytes()).isEqualTo(270000L * 1024);
    // 250 + 50 ticks; CLK_TCK is 100 on Linux x86-64
    assertThat(u.cpuSeconds()).isCloseTo(3.0, within(1e-9));
  }

  @Test
  void coresAreCpuSecondsPerWallSecond() {
    ProcessUsage a = new ProcessUsage(10.0, 0, 0);
    ProcessUsage b = new ProcessUsage(10.5, 0, 2_000_000_000L);
    assertThat(b.coresSince(a)).isCloseTo(0.25, within(1e-12));
    assertThatThrownBy(() -> a.coresSince(b)).hasMessageContaining("not later");
  }

  @Test
  void missingFieldsAreNamed() {
    assertThatThrownBy(() -> ProcessUsage.parse("4242 java S 1", STATUS, 0)).hasMessageContaining("no ')'");
    assertThatThrownBy(() -> ProcessUsage.parse(STAT, "Name:\tjava\n", 0)).hasMessageContaining("VmRSS");
  }
}
