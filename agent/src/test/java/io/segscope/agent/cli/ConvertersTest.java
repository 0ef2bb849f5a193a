package io.segscope.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.telemetry.DeviceSelection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
  void timingWindows() {
    Bounds.TimingWindow c = new Bounds.TimingWindow();
    assertThat(c.convert("always").isAlways()).isTrue();
    assertThat(c.convert("2s")).isEqualTo(new io.segscope.probes.Timing(Duration.ofSeconds(2),
        io.segscope.probes.Timing.DEFAULT.cycle()));
    assertThat(c.convert("500ms/5s")).isEqualTo(new io.segscope.probes.Timing(Duration.ofMillis(500),
        Duration.ofSeconds(5)));
    assertThat(c.convert("1s/10s").label()).isEqualTo("1s/10s");
    for (String bad : new String[] {"50ms", "5s/2s", "1s/500ms", "1s/11m", "1s/", "/10s", "soon", "1s/10s/2"}) {
      assertThatThrownBy(() -> c.convert(bad)).as(bad).isInstanceOf(CommandLine.TypeConversionException.class);
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
    StringWriter err = new StringWriter();
    CommandLine cl = SegscopeCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("run", "--interval", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("not a duration").contains("Usage:");
    err.getBuffer().setLength(0);
    assertThat(cl.execute("frobnicate")).isEqualTo(2);
    assertThat(err.toString()).contains("frobnicate");
    err.getBuffer().setLength(0);
    assertThat(cl.execute()).isEqualTo(2);
    assertThat(err.toString()).contains("missing command");
  }

  /** Runs the command line with {@code args}: its exit code and what it printed on stderr. */
  static String[] usage(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = SegscopeCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), err.toString()};
  }

  @Test
  void everyRunAndReportFlagValueOutsideItsBoundExitsTwoNamingTheBound() {
    String[][] cases = {
        {"100ms..1h", "run", "--interval", "1ms"},
        {"100ms..1h", "run", "--interval", "2h"},
        {"1s..24h", "run", "--advice-window", "999999999h"},
        {"1s..24h", "run", "--advice-window", "500ms", "--interval", "100ms"},
        {"shorter than --interval", "run", "--advice-window", "2s", "--interval", "5s"},
        {"1s..24h", "run", "--advice-open-after", "999999999h"},
        {"1s..24h", "run", "--advice-close-after", "25h"},
        {"1s..24h", "run", "--advice-close-after", "10ms"},
        {"0..65535", "run", "--listen", ":70000"},
        {"at most 253 characters", "run", "--listen", "a b:80"},
        {"1..100000", "run", "--max-devices", "0"},
        {"1..100000", "run", "--max-devices", "100001"},
        {"not a whole number", "run", "--max-devices", "many"},
        {"not a Java regular expression", "run", "--device-include", "("},
        {"not a Java regular expression", "run", "--device-exclude", "[a"},
        {"over the bound of 1024", "run", "--device-include", "x".repeat(1025)},
        {"not an absolute path", "run", "--netns-dir", "run/netns"},
        {"10ms..1m", "run", "--cri-timeout", "9ms"},
        {"10ms..1m", "run", "--cri-timeout", "61s"},
        {"10ms..1m", "run", "--cri-timeout", "2h"},
        {"0..10000", "run", "--web.max-requests", "10001"},
        {"0..10000", "run", "--web.max-requests", "-1"},
        {"not a whole number", "run", "--web.max-requests", "lots"},
        {"1s..10m", "run", "--web.read-header-timeout", "500ms"},
        {"1s..10m", "run", "--web.read-header-timeout", "11m"},
        {"1s..1h", "run", "--web.idle-timeout", "999ms"},
        {"1s..1h", "run", "--web.idle-timeout", "2h"},
        {"1s..15s", "run", "--vanished-device-grace", "16s"},
        {"1s..15s", "run", "--vanished-device-grace", "500ms"},
        {"10ms..1m", "report", "--cri-timeout", "2m"},
        {"1s..1h", "report", "--duration", "500ms"},
        {"1s..1h", "report", "--duration", "2h"},
    };
    for (String[] c : cases) {
      String[] args = Arrays.copyOfRange(c, 1, c.length);
      String[] r = usage(args);
      assertThat(r[0]).as("exit code of %s", String.join(" ", args)).isEqualTo("2");
      assertThat(r[1]).as("message of %s", String.join(" ", args)).contains(c[0]).contains("Usage:");
    }
    List<String> many = new ArrayList<>(List.of("run"));
    for (int i = 0; i < 17; i++) {
      many.addAll(List.of("--netns-dir", "/run/dir" + i));
    }
    String[] r = usage(many.toArray(String[]::new));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--netns-dir is given 17 times: the bound is 16");
  }

  @Test
  void badAdviceIntentsExitTwoWithTheReasonBeforeAnythingIsAttached(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("advice.yaml");
    Files.writeString(file, "accept:\n  - rule: offload_disabled\n    devise: eth0\n");
    String[][] cases = {
        {"--advice-accept 'nope:*/eth0': unknown rule 'nope'", "--advice-accept", "nope:*/eth0"},
        {"is not a glob", "--advice-accept", "offload_disabled:*/[eth"},
        {"expected RULE:NETNS/DEVICE-GLOB", "--advice-accept", "eth0"},
        {file + ": accept[0]: unknown field 'devise'", "--advice-config", file.toString()},
        {"read " + dir.resolve("none.yaml"), "--advice-config", dir.resolve("none.yaml").toString()},
    };
    PrintStream saved = System.err;
    try {
      for (String command : new String[] {"run", "report"}) {
        for (String[] c : cases) {
          ByteArrayOutputStream err = new ByteArrayOutputStream();
          System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
          int code = SegscopeCommand.commandLine().execute(command, c[1], c[2]);
          String text = err.toString(StandardCharsets.UTF_8);
          assertThat(code).as("exit code of %s %s %s", command, c[1], c[2]).isEqualTo(2);
          assertThat(text).as("message of %s %s %s", command, c[1], c[2]).startsWith("segscope " + command + ": ")
              .contains(c[0]).doesNotContain("Exception").doesNotContain("\tat ");
        }
      }
      for (String command : new String[] {"run", "report"}) {
        List<String> args = new ArrayList<>(List.of(command));
        for (int i = 0; i < 1001; i++) {
          args.addAll(List.of("--advice-accept", "offload_disabled:*/dev" + i));
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code = SegscopeCommand.commandLine().execute(args.toArray(String[]::new));
        assertThat(code).as("exit code of %s with 1001 --advice-accept", command).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).as("message of %s", command)
            .isEqualTo("segscope " + command + ": --advice-accept is given 1001 times: the bound is 1000"
                + System.lineSeparator());
      }
    } finally {
      System.setErr(saved);
    }
  }

  @Test
  void valuesAtTheirBoundsParse() {
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--interval", "100ms", "--advice-window", "24h", "--advice-open-after", "1s",
        "--advice-close-after", "24h", "--listen", ":0", "--max-devices", "100000", "--device-include", "^veth",
        "--device-exclude", "^lo$", "--cri-timeout", "10ms");
    assertThat(run.workload.timeout()).isEqualTo(Duration.ofMillis(10));
    RunCommand longest = new RunCommand();
    new CommandLine(longest).parseArgs("--cri-timeout", "1m", "--web.max-requests", "10000",
        "--web.read-header-timeout", "10m", "--web.idle-timeout", "1h");
    assertThat(longest.workload.timeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(longest.maxRequests).isEqualTo(10_000);
    assertThat(longest.readHeaderTimeout).isEqualTo(Duration.ofMinutes(10));
    assertThat(longest.idleTimeout).isEqualTo(Duration.ofHours(1));
    RunCommand shortest = new RunCommand();
    new CommandLine(shortest).parseArgs("--web.max-requests", "0", "--web.read-header-timeout", "1s",
        "--web.idle-timeout", "1s");
    assertThat(shortest.maxRequests).isZero();
    assertThat(shortest.readHeaderTimeout).isEqualTo(Duration.ofSeconds(1));
    assertThat(shortest.idleTimeout).isEqualTo(Duration.ofSeconds(1));
    assertThat(run.interval).isEqualTo(Duration.ofMillis(100));
    assertThat(run.adviceWindow).isEqualTo(Duration.ofHours(24));
    assertThat(run.inventory.maxDevices).isEqualTo(100000);
    assertThat(run.inventory.deviceInclude.pattern()).isEqualTo("^veth");
    RunCommand defaults = new RunCommand();
    new CommandLine(defaults).parseArgs();
    assertThat(defaults.inventory.maxDevices).isEqualTo(DeviceSelection.Config.DEFAULT_MAX_DEVICES);
    assertThat(defaults.inventory.deviceInclude).isNull();
    assertThat(defaults.workload.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.maxRequests).isEqualTo(40);
    assertThat(defaults.readHeaderTimeout).isEqualTo(Duration.ofSeconds(10));
    assertThat(defaults.idleTimeout).isEqualTo(Duration.ofSeconds(60));
    ReportCommand report = new ReportCommand();
    new CommandLine(report).parseArgs("--duration", "1h", "--cri-timeout", "250ms");
    assertThat(report.duration).isEqualTo(Duration.ofHours(1));
    assertThat(report.workload.timeout()).isEqualTo(Duration.ofMillis(250));
    ReportCommand reportDefaults = new ReportCommand();
    new CommandLine(reportDefaults).parseArgs();
    assertThat(reportDefaults.workload.timeout()).isEqualTo(Duration.ofSeconds(2));
  }
}
