package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.host.sys.Libc;
import io.segscope.probes.bcc.StderrCapture.Captured;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StderrCaptureTest {

  @Test
  void capturesWhatANativeCallWritesToFd2AndRestoresIt() throws Exception {
    byte[] text = "clang: error: something\n".getBytes(StandardCharsets.UTF_8);
    String fd2Before = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();

    Captured<Long> captured = StderrCapture.around(() -> Libc.INSTANCE.write(2, text, text.length));

    assertThat(captured.captured()).isTrue();
    assertThat(captured.value()).isEqualTo(text.length);
    assertThat(captured.stderr()).isEqualTo("clang: error: something\n");
    assertThat(Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString()).isEqualTo(fd2Before);
  }

  @Test
  void whatACallPrintsIsKeptAndNotWrittenBackToFd2() {
    byte[] text = "bpf: Failed to load program: Operation not permitted\n".getBytes(StandardCharsets.UTF_8);
    // the outer capture records what reaches fd 2 while the inner one runs
    Captured<Captured<Long>> outer = StderrCapture.around(
        () -> StderrCapture.around(() -> Libc.INSTANCE.write(2, text, text.length)));
    assertThat(outer.value().stderr()).isEqualTo("bpf: Failed to load program: Operation not permitted\n");
    assertThat(outer.stderr()).as("what reached fd 2").isEmpty();
  }

  /**
   * An exit in the middle of a compile (SIGTERM while clang runs) must leave nothing in the temporary
   * directory: while the call runs, fd 2 is a file without a name.
   */
  @Test
  void theFileFd2PointsAtHasNoNameWhileTheCallRuns() throws Exception {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Captured<String> captured = StderrCapture.around(() -> {
      try {
        String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
        try (var listing = Files.list(tmp)) {
          return target + " | " + listing.filter(f -> f.getFileName().toString().startsWith("segscope-bcc-"))
              .map(Path::toString).toList();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    assertThat(captured.captured()).isTrue();
    assertThat(captured.value()).as("fd 2 during the call | segscope-bcc-* files in %s", tmp)
        .endsWith("(deleted) | []");
  }
}
