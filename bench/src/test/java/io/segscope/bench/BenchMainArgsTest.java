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
  void runTakesTheAgentJarOutputAndParts(@TempDir Path dir) throws Exception {
    Path jar = Files.createFile(dir.resolve("segscope.jar"));
    BenchMain.Args a = BenchMain.Args.parse(new String[] {"run", "--agent-jar", jar.toString(), "--out", "o",
        "--markdown", "B.md", "--parts", "cost,jmh", "--quick"});
    assertThat(a.parts()).isEqualTo(List.of("cost", "jmh"));
    assertThat(a.quick()).isTrue();
    assertThat(BenchMain.Args.parse(new String[] {"run", "--agent-jar", jar.toString(), "--out", "o",
        "--markdown", "B.md"}).parts()).isEqualTo(BenchMain.PARTS);
  }

  @Test
  void badArgumentsAreNamed(@TempDir Path dir) {
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {})).hasMessageContaining("run or report");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"report", "--out"})).hasMessageContaining("--out needs a value");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"report", "--out", "o", "--markdown", "m", "--parts", "cost,x"}))
        .hasMessageContaining("unknown part x");
    assertThatThrownBy(() -> BenchMain.Args.parse(new String[] {"run", "--out", "o", "--markdown", "m",
        "--agent-jar", dir.resolve("missing.jar").toString()})).hasMessageContaining("--agent-jar");
  }
}
