package io.segscope.bench.part;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleResultTest {
  @Test
  void compileMemoryLineParses() {
    ScaleResult.CompileMemory m = ScaleResult.CompileMemory.parse(
        "before=38212/17700/20512 attached=237956/136864/101092 trimmed=209176/108084/101092\n");
    assertThat(m.before()).containsExactly(38212, 17700, 20512);
    assertThat(m.attached()).containsExactly(237956, 136864, 101092);
    assertThat(m.trimmed()).containsExactly(209176, 108084, 101092);
  }

  @Test
  void aBrokenCompileMemoryLineIsNamed() {
    assertThatThrownBy(() -> ScaleResult.CompileMemory.parse("before=1/2/3 attached=1/2"))
        .hasMessageContaining("key=rss/anon/file");
    assertThatThrownBy(() -> ScaleResult.CompileMemory.parse("before=1/2/3"))
        .hasMessageContaining("before, attached and trimmed");
  }

  @Test
  void theAttachTimeComesFromTheAgentsLog(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("agent.log");
    Files.writeString(log, "2026-11-30T19:54:43.386Z INFO    io.segscope.agent.AgentRuntime: probes attached in 3742 ms:"
        + " 5 programs, mode tracepoint\n");
    assertThat(ScalePart.attachSeconds(log)).isEqualTo(3.742);
    Files.writeString(log, "nothing\n");
    assertThat(ScalePart.attachSeconds(log)).isEqualTo(-1);
  }
}
