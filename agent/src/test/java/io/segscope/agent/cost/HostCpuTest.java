package io.segscope.agent.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostCpuTest {
  /** The head of /proc/stat as read on the 6.18 development host (2 CPUs), the intr line cut short. */
  private static final String RECORDED = """
      cpu  108375 0 24397 58378 623 0 5544 374 0 0
      cpu0 53187 0 11866 30106 131 0 3381 182 0 0
      cpu1 55187 0 12531 28272 492 0 2163 192 0 0
      intr 2048930 0 0 0 0 0 0 0 0 0
      """;

  @Test
  void systemIrqAndSoftirqOfAllCpusInSeconds() {
    // (24397 + 0 + 5544) ticks of 1/100 s
    assertThat(HostCpu.parse(RECORDED)).hasValue(299.41);
  }

  @Test
  void aTextWithoutTheCpuLineOrWithTooFewColumnsIsUnknown() {
    assertThat(HostCpu.parse("intr 1 2 3\n")).isEmpty();
    assertThat(HostCpu.parse("cpu  1 2 3 4 5\n")).isEmpty();
    assertThat(HostCpu.parse("cpu  1 2 x 4 5 6 7 8\n")).isEmpty();
    assertThat(HostCpu.parse("")).isEmpty();
  }

  @Test
  void anUnreadableFileIsNaN(@TempDir Path dir) throws Exception {
    assertThat(HostCpu.read(dir.resolve("missing"))).isNaN();
    Path f = Files.writeString(dir.resolve("stat"), RECORDED);
    assertThat(HostCpu.read(f)).isEqualTo(299.41);
  }

  @Test
  void theHostsOwnProcStatReads() {
    assertThat(HostCpu.read()).isPositive();
  }
}
