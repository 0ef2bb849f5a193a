package io.segscope.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LauncherTest {
  private static final String SCRIPT = """
      #!/usr/bin/env bash
      export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
      read -r -a java_opts <<<"${SEGSCOPE_JAVA_OPTS:--Xms32m -Xmx192m -XX:+UseSerialGC}"
      exec java "${java_opts[@]}" -jar "$jar" "$@"
      """;

  @Test
  void takesTheDefaultFlagsAndExportsOfTheScript() {
    Launcher l = Launcher.parse(SCRIPT, Map.of());
    assertThat(l.javaOptions()).containsExactly("-Xms32m", "-Xmx192m", "-XX:+UseSerialGC");
    assertThat(l.environment()).containsExactly(Map.entry("MALLOC_ARENA_MAX", "2"));
    assertThat(l.javaOptionsLine()).isEqualTo("-Xms32m -Xmx192m -XX:+UseSerialGC");
  }

  @Test
  void honoursTheEnvironmentAsTheLauncherDoes() {
    Launcher l =
        Launcher.parse(SCRIPT, Map.of("SEGSCOPE_JAVA_OPTS", " -Xmx1g  -XX:+UseG1GC ", "MALLOC_ARENA_MAX", "4"));
    assertThat(l.javaOptions()).isEqualTo(List.of("-Xmx1g", "-XX:+UseG1GC"));
    assertThat(l.environment()).containsEntry("MALLOC_ARENA_MAX", "4");
  }

  @Test
  void aScriptWithoutDefaultsIsNamed() {
    assertThatThrownBy(() -> Launcher.parse("#!/bin/sh\nexec java -jar x\n", Map.of()))
        .hasMessageContaining("no ${SEGSCOPE_JAVA_OPTS:-...} default");
  }

  @Test
  void theRepositorysOwnLauncherParses() {
    // the module runs with bench/ as its working directory: the launcher is one level up
    Launcher l = Launcher.read(Path.of("..", "segscope"));
    assertThat(l.javaOptions()).isNotEmpty().anyMatch(o -> o.startsWith("-Xmx"));
    assertThat(l.environment()).containsKey("MALLOC_ARENA_MAX");
  }
}
