package io.segscope.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

  @Test
  void aRegularFileUpToItsBoundIsReadWhole(@TempDir Path dir) throws Exception {
    Path f = Files.write(dir.resolve("a.yml"), "0123456789".getBytes());
    assertThat(ConfigFile.read(f, 10)).isEqualTo("0123456789".getBytes());
    Path link = Files.createSymbolicLink(dir.resolve("link.yml"), f);
    assertThat(ConfigFile.read(link, 10)).as("a link to a regular file").hasSize(10);
    assertThat(ConfigFile.read(Files.write(dir.resolve("empty.yml"), new byte[0]), 10)).isEmpty();
  }

  @Test
  void oneByteOverTheBoundIsRefusedNamingTheBound(@TempDir Path dir) throws Exception {
    Path f = Files.write(dir.resolve("a.yml"), "01234567890".getBytes());
    assertThatThrownBy(() -> ConfigFile.read(f, 10)).isInstanceOf(ConfigFile.RefusedException.class)
        .hasMessage(f + " is larger than 10 bytes");
  }

  @Test
  void aFileWhoseSizeSaysNothingIsStillNotReadPastTheBound() {
    // /proc files are regular files of size 0 whatever they hold
    Path status = Path.of("/proc/self/status");
    assertThatThrownBy(() -> ConfigFile.read(status, 64)).isInstanceOf(ConfigFile.RefusedException.class)
        .hasMessage(status + " is larger than 64 bytes");
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void devicesDirectoriesFifosAndMissingFilesAreRefusedBeforeTheyAreOpened(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();
    for (Path p : new Path[] {Path.of("/dev/zero"), Path.of("/dev/urandom"), dir, fifo}) {
      assertThatThrownBy(() -> ConfigFile.read(p, 1 << 20)).as("%s", p)
          .isInstanceOf(ConfigFile.RefusedException.class).hasMessage(p + " is not a regular file")
          .extracting(e -> ((ConfigFile.RefusedException) e).reason()).isEqualTo("is not a regular file");
    }
    Path missing = dir.resolve("missing.yml");
    assertThatThrownBy(() -> ConfigFile.read(missing, 10)).isInstanceOf(ConfigFile.RefusedException.class)
        .hasMessage(missing + " does not exist");
  }
}
