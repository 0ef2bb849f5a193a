package io.segscope.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchMainArgsTest {
  @Test
  void runTakesTheJarsOutputAndParts(@TempDir Path dir) throws Exception {
    Path jar = Files.createFile(dir.resolve("segscope.jar"));
    Path launcher = Files.createFile(dir.resolve("segscope"));
    BenchMain.Args a = BenchMain.Args.parse(new String[] {"run", "--agent-jar", jar.toString(), "--launcher",
        launcher.toString(), "--out", "o", "--markdown", "B.md", "--parts", "kernel,jmh", "--quick"});
    assertThat(a.parts()).isEqualTo(List.of("kernel", "jmh"));
    assertThat(a.quick()).isTrue();
    assertThat(a.launcher()).isEqualTo(launcher);
    // no --parts: the run's default (every part; --quick leaves the guest out)
    assertThat(BenchMain.Args.parse(new String[] {"run", "--agent-jar", jar.toString(), "--launcher",
        launcher.toString(), "--out", "o", "--markdown", "B.md"}).parts()).isNull();
    assertThat(BenchMain.PARTS).containsExactly("kernel", "overhead", "scale", "guest", "jmh", "container");
    assertThat(BenchMain.QUICK_PARTS).doesNotContain("guest", "container");
  }

  @Test
  void theDefaultRunLeavesTheContainerPartOutOnlyWhenItsToolsAreMissing() {
    assertThat(BenchMain.defaultParts(List.of())).isEqualTo(BenchMain.PARTS);
    assertThat(BenchMain.defaultParts(List.of("podman"))).containsExactly("kernel", "overhead", "scale", "guest",
        "jmh");
  }

  @Test
  void guestMemoryNeedsNoMarkdownButAnEvenDeviceCount(@TempDir Path dir) throws Exception {
    Path jar = Files.createFile(dir.resolve("segscope.jar"));
    Path launcher = Files.createFile(dir.resolve("segscope"));
    BenchMain.Args a = BenchMain.Args.parse(new String[] {"guest-memory", "--agent-jar", jar.toString(),
        "--launcher", launcher.toString(), "--out", "o", "--devices", "1000", "--smp", "1,maxcpus=128"});
    assertThat(a.devices()).isEqualTo(1000);
    assertThat(a.smp()).isEqualTo("1,maxcpus=128");
    for (String bad : List.of("999", "0", "x", "70000")) {
      assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"guest-memory", "--agent-jar", jar.toString(),
          "--launcher", launcher.toString(), "--out", "o", "--devices", bad}))
          .as(bad).hasMessageContaining("--devices must be an even number from 2 to 32768, got " + bad);
    }
  }

  @Test
  void guestCostTakesItsPairs(@TempDir Path dir) throws Exception {
    Path jar = Files.createFile(dir.resolve("segscope.jar"));
    Path launcher = Files.createFile(dir.resolve("segscope"));
    BenchMain.Args a = BenchMain.Args.parse(new String[] {"guest-cost", "--agent-jar", jar.toString(),
        "--launcher", launcher.toString(), "--out", "o"});
    assertThat(a.pairs()).as("the issue's at least 9 interleaved pairs").isEqualTo(9);
    assertThat(BenchMain.Args.parse(new String[] {"guest-cost", "--agent-jar", jar.toString(),
        "--launcher", launcher.toString(), "--out", "o", "--pairs", "2"}).pairs()).isEqualTo(2);
    for (String bad : List.of("0", "x", "101")) {
      assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"guest-cost", "--agent-jar", jar.toString(),
          "--launcher", launcher.toString(), "--out", "o", "--pairs", bad}))
          .as(bad).hasMessageContaining("--pairs must be a number from 1 to 100, got " + bad);
    }
  }

  @Test
  void badArgumentsAreNamed(@TempDir Path dir) throws Exception {
    Path jar = Files.createFile(dir.resolve("segscope.jar"));
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {}))
        .hasMessageContaining("run, report, guest-memory or guest-cost");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"report", "--out"}))
        .hasMessageContaining("--out needs a value");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"report", "--out", "o", "--markdown", "m", "--parts",
        "kernel,x"})).hasMessageContaining("unknown part x");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"run", "--out", "o", "--markdown", "m",
        "--agent-jar", dir.resolve("missing.jar").toString()})).hasMessageContaining("--agent-jar");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"run", "--out", "o", "--markdown", "m",
        "--agent-jar", jar.toString()})).hasMessageContaining("--launcher must name the repository's segscope script");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"report", "--markdown", "m"}))
        .hasMessageContaining("--out is required");
  }
}
