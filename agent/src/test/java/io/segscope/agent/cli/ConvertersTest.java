package io.segscope.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConvertersTest {

  @Test
  void durations() {
    assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationConverter.parse("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(DurationConverter.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
    for (String bad : new String[] {"", "5", "s", "-1s", "1.5s", "0s", "5 seconds", "99999999999s"}) {
      assertThatThrownBy(() -> DurationConverter.parse(bad)).as(bad)
          .isInstanceOf(CommandLine.TypeConversionException.class);
    }
  }

  @Test
  void listenAddresses() {
    assertThat(ListenAddress.parse("127.0.0.1:9810")).isEqualTo(new ListenAddress("127.0.0.1", 9810));
    assertThat(ListenAddress.parse(":9810")).isEqualTo(new ListenAddress("0.0.0.0", 9810));
    assertThat(ListenAddress.parse("[::1]:80")).isEqualTo(new ListenAddress("::1", 80));
    for (String bad : new String[] {"9810", "host:", "host:x", "host:70000", "host:-1"}) {
      assertThatThrownBy(() -> ListenAddress.parse(bad)).as(bad)
          .isInstanceOf(CommandLine.TypeConversionException.class);
    }
  }

  @Test
  void badFlagsExitTwoWithUsage() {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cl = SegscopeCommand.commandLine();
    cl.setErr(new java.io.PrintWriter(err));
    assertThat(cl.execute("run", "--interval", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("not a duration").contains("Usage:");
    err.getBuffer().setLength(0);
    assertThat(cl.execute("frobnicate")).isEqualTo(2);
    assertThat(err.toString()).contains("frobnicate");
    err.getBuffer().setLength(0);
    assertThat(cl.execute()).isEqualTo(2);
    assertThat(err.toString()).contains("missing command");
  }
}
