package io.segscope.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Compares output with a committed file under src/test/resources/golden/. Run with
 * {@code -Dsegscope.golden.update=true} to rewrite a file after a deliberate change: the test then
 * fails once, so a rewrite is never mistaken for a pass; review the diff before committing.
 */
final class GoldenFiles {
  private GoldenFiles() {}

  static void assertMatches(String name, String actual) throws IOException {
    if (Boolean.getBoolean("segscope.golden.update")) {
      Path file = Path.of("src/test/resources/golden", name);
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual, StandardCharsets.UTF_8);
      fail("rewrote golden file " + file.toAbsolutePath() + ": review it, then run without the flag");
    }
    String expected;
    try (InputStream in = GoldenFiles.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file /golden/%s on the test class path", name).isNotNull();
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(actual).as("output compared with golden/%s", name).isEqualTo(expected);
  }
}
