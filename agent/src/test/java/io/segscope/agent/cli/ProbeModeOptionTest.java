package io.segscope.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.ProbeMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ProbeModeOptionTest {
  private final ProbeModeOption.Converter converter = new ProbeModeOption.Converter();

  @Test
  void autoForcesNothingAndEachModeForcesItself() {
    assertThat(converter.convert("auto").forced()).isEmpty();
    assertThat(converter.convert("Kprobe").forced()).contains(ProbeMode.KPROBE);
    assertThat(converter.convert("fentry").forced()).contains(ProbeMode.FENTRY);
    assertThat(converter.convert(" tracepoint ").forced()).contains(ProbeMode.TRACEPOINT);
    assertThat(ProbeModeOption.AUTO).hasToString("auto");
  }

  @Test
  void anUnknownModeNamesTheChoices() {
    assertThatThrownBy(() -> converter.convert("uprobe")).isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessage("'uprobe' is not a probe mode: expected auto, fentry, kprobe or tracepoint");
  }
}
