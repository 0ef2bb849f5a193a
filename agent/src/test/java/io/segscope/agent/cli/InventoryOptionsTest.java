package io.segscope.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.probes.TracepointAttach;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The inventory and selection flags run and report share (InventoryOptions): one definition, one set of bounds. */
class InventoryOptionsTest {
  static final String[] FLAGS = {"--netns-dir", "/run/docker/netns", "--netns-dir", "/run/netns",
      "--tracepoint-attach", "raw_tp", "--device-include", "^veth", "--device-exclude", "^lo$",
      "--max-devices", "100000"};

  @Test
  void runAndReportParseEveryInventoryFlagAlike() {
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs(FLAGS);
    ReportCommand report = new ReportCommand();
    new CommandLine(report).parseArgs(FLAGS);
    for (InventoryOptions o : List.of(run.inventory, report.inventory)) {
      assertThat(o.netnsDirs()).containsExactly(Path.of("/run/docker/netns"), Path.of("/run/netns"));
      assertThat(o.tracepointAttach()).contains(TracepointAttach.parse("raw_tp"));
      DeviceSelection.Config devices = o.devices();
      assertThat(devices.include().orElseThrow().pattern()).isEqualTo("^veth");
      assertThat(devices.exclude().orElseThrow().pattern()).isEqualTo("^lo$");
      assertThat(devices.maxDevices()).isEqualTo(100000);
    }
  }

  @Test
  void theReportReadsTheInventoryFromTheNetnsDirsToo() {
    ReportCommand report = new ReportCommand();
    new CommandLine(report).parseArgs(FLAGS);
    assertThat(report.inventoryConfig().namedNetnsDirs())
        .as("/run/netns first, each directory once, then the others in the order given")
        .containsExactly(Path.of("/run/netns"), Path.of("/run/docker/netns"));
    ReportCommand defaults = new ReportCommand();
    new CommandLine(defaults).parseArgs();
    assertThat(defaults.inventoryConfig().namedNetnsDirs()).containsExactly(Path.of("/run/netns"));
    assertThat(defaults.inventory.tracepointAttach()).isEqualTo(Optional.empty());
    assertThat(defaults.inventory.devices()).isEqualTo(DeviceSelection.Config.DEFAULT);
  }

  @Test
  void reportBoundsTheInventoryFlagsAsRunDoes() {
    String[][] cases = {
        {"1..100000", "--max-devices", "0"},
        {"1..100000", "--max-devices", "100001"},
        {"not a whole number", "--max-devices", "many"},
        {"not a Java regular expression", "--device-include", "("},
        {"not a Java regular expression", "--device-exclude", "[a"},
        {"over the bound of 1024", "--device-include", "x".repeat(1025)},
        {"not an absolute path", "--netns-dir", "run/netns"},
    };
    for (String command : new String[] {"run", "report"}) {
      for (String[] c : cases) {
        String[] r = ConvertersTest.usage(command, c[1], c[2]);
        assertThat(r[0]).as("exit code of %s %s", command, c[1]).isEqualTo("2");
        assertThat(r[1]).as("message of %s %s", command, c[1]).contains(c[0]).contains("Usage:");
      }
      List<String> many = new ArrayList<>(List.of(command));
      for (int i = 0; i < 17; i++) {
        many.addAll(List.of("--netns-dir", "/run/dir" + i));
      }
      String[] r = ConvertersTest.usage(many.toArray(String[]::new));
      assertThat(r[0]).as("exit code of %s with 17 --netns-dir", command).isEqualTo("2");
      assertThat(r[1]).contains("--netns-dir is given 17 times: the bound is 16");
    }
  }

  @Test
  void aNetnsDirThatIsAFileOrAnUnknownAttachTypeIsRefused(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("netns"), "");
    InventoryOptions o = new InventoryOptions();
    new CommandLine(o).parseArgs("--netns-dir", dir.toString(), "--netns-dir", "/nonexistent/netns");
    assertThat(o.notADirectory()).as("a directory, and one that does not exist (yet)").isEmpty();
    new CommandLine(o).parseArgs("--netns-dir", dir.toString(), "--netns-dir", file.toString());
    assertThat(o.notADirectory()).contains("--netns-dir " + file + " is not a directory");
    new CommandLine(o).parseArgs("--tracepoint-attach", "kprobe");
    assertThatThrownBy(o::tracepointAttach).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected tp_btf, raw_tp or tracepoint");
  }

  /** report checks these before privileges (run, which shares the checks, after them). */
  @Test
  void reportExitsTwoOnThemBeforeAnythingIsAttached(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("netns"), "");
    String[][] cases = {
        {"segscope report: --netns-dir " + file + " is not a directory", "--netns-dir", file.toString()},
        {"segscope report: --tracepoint-attach: parse tracepoint attach type 'kprobe'", "--tracepoint-attach",
            "kprobe"},
    };
    PrintStream saved = System.err;
    try {
      for (String[] c : cases) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code = SegscopeCommand.commandLine().execute("report", c[1], c[2]);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as("exit code of report %s %s", c[1], c[2]).isEqualTo(2);
        assertThat(text).as("message of report %s", c[1]).startsWith(c[0]);
      }
    } finally {
      System.setErr(saved);
    }
  }
}
