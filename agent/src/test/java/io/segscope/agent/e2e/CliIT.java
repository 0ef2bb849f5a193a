package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar as a user runs it: exit codes and messages. */
class CliIT {

  @Test
  void helpExitsZeroAndListsCommands() throws Exception {
    AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), "--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.output()).contains("Usage: segscope").contains("run");
  }

  @Test
  void badFlagExitsTwoWithoutStackTrace() throws Exception {
    AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--listen", "nowhere");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.output()).contains("HOST:PORT").doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void aBadCriEndpointExitsTwoNamingTheValueBeforeAnythingStarts() throws Exception {
    for (String cmd : List.of("run", "report")) {
      AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), cmd, "--cri-endpoint",
          "containerd.sock;reboot");
      assertThat(r.exitCode()).as(r.output()).isEqualTo(2);
      assertThat(r.output().strip()).isEqualTo("segscope " + cmd + ": --cri-endpoint 'containerd.sock;reboot': "
          + "expected an absolute socket path or unix:///path (or none)");
    }
    AgentProcess.ProcessResult both = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--cri-endpoint", "none",
        "--cri-endpoint", "/run/containerd/containerd.sock");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.output()).contains("--cri-endpoint none cannot be combined").doesNotContain("\tat ");
    AgentProcess.ProcessResult timeout = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--cri-timeout", "0s");
    assertThat(timeout.exitCode()).isEqualTo(2);
    assertThat(timeout.output()).contains("must be > 0").doesNotContain("\tat ");
  }

  @Test
  void withoutCapabilitiesItNamesWhatIsMissingAndExitsOne() throws Exception {
    Requirement.require(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv (util-linux)");
    Path out = Files.createTempFile("segscope-nocaps", ".log");
    Process p = new ProcessBuilder(List.of("setpriv", "--inh-caps=-all", "--bounding-set=-all",
        "java", "-jar", AgentProcess.jar().toString(), "run", "--listen", "127.0.0.1:0"))
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String text = Files.readString(out);
    Files.delete(out);
    assertThat(p.exitValue()).as(text).isEqualTo(1);
    assertThat(text.strip().lines().count()).as("one line: " + text).isEqualTo(1);
    assertThat(text).contains("missing privileges").contains("CAP_BPF").doesNotContain("\tat ");
  }

  @Test
  void aBadWebConfigExitsTwoWithOneLineNamingTheField(@TempDir Path dir) throws Exception {
    Path bad = Files.writeString(dir.resolve("web.yml"), "tls_server_config:\n  certfile: x.crt\n");
    AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--listen",
        "127.0.0.1:0", "--web.config.file", bad.toString());
    assertThat(r.exitCode()).as(r.output()).isEqualTo(2);
    assertThat(r.output().strip().lines().count()).as("one line: " + r.output()).isEqualTo(1);
    assertThat(r.output()).contains("--web.config.file").contains("tls_server_config.certfile: unknown field")
        .doesNotContain("Exception").doesNotContain("\tat ");

    AgentProcess.ProcessResult missing = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--listen",
        "127.0.0.1:0", "--web.config.file", dir.resolve("nowhere.yml").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.output().strip().lines().count()).isEqualTo(1);
    assertThat(missing.output()).contains("does not exist");
  }

  /**
   * A file flag pointed at what is no file ends the start with exit 2 and one line, for run and report alike: a
   * device that never ends (/dev/zero once took the heap, exit 3), a FIFO nobody writes (would block), a
   * directory.
   */
  @Test
  void fileFlagsRefuseDevicesFifosAndDirectoriesWithOneLine(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("fifo");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor()).isZero();
    for (String target : List.of("/dev/zero", fifo.toString(), dir.toString())) {
      for (List<String> args : List.of(List.of("run", "--listen", "127.0.0.1:0", "--advice-config", target),
          List.of("report", "--advice-config", target),
          List.of("run", "--listen", "127.0.0.1:0", "--web.config.file", target))) {
        AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), args.toArray(String[]::new));
        assertThat(r.exitCode()).as("%s: %s", args, r.output()).isEqualTo(2);
        assertThat(r.output().strip().lines().count()).as("one line: %s", r.output()).isEqualTo(1);
        assertThat(r.output()).as("%s", args).contains(target + ": is not a regular file")
            .doesNotContain("Exception").doesNotContain("OutOfMemoryError");
      }
    }
  }

  @Test
  void webFlagsOutsideTheirBoundsExitTwoNamingTheBound() throws Exception {
    for (String[] c : new String[][] {{"--web.max-requests", "10001", "0..10000"},
        {"--web.read-header-timeout", "500ms", "1s..10m"}, {"--web.idle-timeout", "2h", "1s..1h"}}) {
      AgentProcess.ProcessResult r = AgentProcess.runToExit(Duration.ofSeconds(30), "run", "--listen", "127.0.0.1:0",
          c[0], c[1]);
      assertThat(r.exitCode()).as(String.join(" ", c) + ": " + r.output()).isEqualTo(2);
      assertThat(r.output()).contains(c[0]).contains(c[2]).doesNotContain("Exception");
    }
  }
}
