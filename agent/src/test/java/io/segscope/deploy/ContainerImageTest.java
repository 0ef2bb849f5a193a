package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Containerfile reader that lets the confined-agent tests run what the image runs. */
class ContainerImageTest {
  @Test
  void theShippedImageRunsTheJarAtItsImagePathWithTheLaunchersMallocArenas() {
    ContainerImage image = ContainerImage.read();
    assertThat(image.entrypoint()).startsWith("java").endsWith("-jar", ConfinedAgent.IMAGE_JAR)
        .contains("-XX:+ExitOnOutOfMemoryError", "-Xmx192m");
    assertThat(image.env()).containsEntry("MALLOC_ARENA_MAX", "2").containsEntry("HOME", "/tmp");
  }

  @Test
  void onlyTheLastStageCountsAndContinuedLinesAreJoined() {
    ContainerImage image = ContainerImage.parse("""
        FROM a AS build
        ENV X=1
        ENTRYPOINT ["no"]
        FROM b
        ENV Y=2
        ENTRYPOINT ["java", "-Xmx1m", \\
                    "-jar", "/j.jar"]
        CMD ["run"]
        """);
    assertThat(image.entrypoint()).containsExactly("java", "-Xmx1m", "-jar", "/j.jar");
    assertThat(image.env()).isEqualTo(Map.of("Y", "2"));
  }

  @Test
  void theLastStageInheritsFromTheStagesItIsBuiltOn() {
    ContainerImage image = ContainerImage.parse("""
        ARG BASE=debian
        FROM ${BASE} AS build
        ENV B=1
        FROM ${BASE} AS runtime
        ENV HOME=/tmp
        ENV Y=1
        ENTRYPOINT ["java", "-jar", "/j.jar"]
        FROM runtime AS prebuilt
        ENV P=1
        FROM runtime
        ENV Y=2
        COPY --from=build /j.jar /j.jar
        """);
    assertThat(image.entrypoint()).containsExactly("java", "-jar", "/j.jar");
    assertThat(image.env()).isEqualTo(Map.of("HOME", "/tmp", "Y", "2"));
  }

  @Test
  void aShellFormEntrypointOrNoneIsRefusedWithTheLine() {
    assertThatThrownBy(() -> ContainerImage.parse("FROM b\nENTRYPOINT java -jar /j.jar\n"))
        .hasMessageStartingWith("parse the Containerfile's ENTRYPOINT: not a JSON array: ENTRYPOINT java");
    assertThatThrownBy(() -> ContainerImage.parse("FROM b\nCMD [\"run\"]\n"))
        .hasMessage("parse the Containerfile: its final image has no ENTRYPOINT");
  }
}
