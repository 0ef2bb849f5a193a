package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandTest {
  @Test
  void returnsStdoutOfASuccessfulCommand() {
    assertThat(Command.run(List.of("/bin/sh", "-c", "echo hello; echo noise >&2"))).isEqualTo("hello\n");
  }

  @Test
  void failureNamesTheCommandLineExitCodeAndStderr() {
    assertThatThrownBy(() -> Command.run(List.of("/bin/sh", "-c", "echo boom >&2; exit 3")))
        .isInstanceOf(LabException.class)
        .hasMessage("run `/bin/sh -c echo boom >&2; exit 3`: exit 3: boom");
  }

  @Test
  void aCommandThatCannotStartIsNamed() {
    assertThatThrownBy(() -> Command.run(List.of("/nonexistent/segscope-tool", "-x")))
        .isInstanceOf(LabException.class)
        .hasMessageStartingWith("run `/nonexistent/segscope-tool -x`: cannot start");
  }

  @Test
  void aHangingCommandIsKilledAtTheDeadline() {
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> Command.run(List.of("/bin/sleep", "30"), Duration.ofMillis(300)))
        .isInstanceOf(LabException.class)
        .hasMessageContaining("/bin/sleep 30")
        .hasMessageContaining("timed out");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void standardInputIsGivenWhenAskedAndEmptyOtherwise() {
    Command.Result fed =
        Command.attempt(List.of("/bin/cat"), "netns del a\nnetns del \u00e9\n", Duration.ofSeconds(10));
    assertThat(fed.exitCode()).isZero();
    assertThat(fed.stdout()).isEqualTo("netns del a\nnetns del \u00e9\n");
    Command.Result none = Command.attempt(List.of("/bin/cat"), Duration.ofSeconds(10));
    assertThat(none.exitCode()).isZero();
    assertThat(none.stdout()).isEmpty();
  }
}
