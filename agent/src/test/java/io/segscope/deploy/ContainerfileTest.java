package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.testkit.deploy.RepoFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The container image definition, checked without building it (no image builder here): base
 * image, packages, and that the paths it uses agree with the build and the DaemonSet.
 */
class ContainerfileTest {
  private static final String FILE = "deploy/container/Containerfile";

  /** Instructions with continuation lines joined, comments dropped. */
  private static List<String> instructions() {
    return ContainerImage.instructions(RepoFiles.text(FILE));
  }

  private static List<String> starting(String keyword) {
    return instructions().stream().filter(i -> i.startsWith(keyword + " ")).toList();
  }

  @Test
  void buildsOnDebianBookwormAndRunsOnItsSlimVariantByDefaultWithTheBasesAsBuildArguments() {
    // the base images are build arguments (scripts/image passes a local bookworm made by mmdebstrap);
    // their defaults are the public ones, declared before the first FROM
    assertThat(instructions().subList(0, 2)).containsExactly("ARG BUILD_BASE=docker.io/library/debian:bookworm",
        "ARG RUNTIME_BASE=docker.io/library/debian:bookworm-slim");
    assertThat(starting("FROM")).containsExactly("FROM ${BUILD_BASE} AS build", "FROM ${RUNTIME_BASE} AS runtime",
        "FROM runtime AS prebuilt", "FROM runtime");
  }

  /** The instructions of the stage that starts with {@code from}, up to the next FROM. */
  private static List<String> stage(String from) {
    List<String> all = instructions();
    int start = all.indexOf(from);
    assertThat(start).as("stage %s", from).isNotNegative();
    int end = start + 1;
    while (end < all.size() && !all.get(end).startsWith("FROM ")) {
      end++;
    }
    return all.subList(start, end);
  }

  @Test
  void runtimeInstallsLibbccAndAJre17ButNoCompilerOrHeaders() {
    String runtime = String.join("\n", stage("FROM ${RUNTIME_BASE} AS runtime"));
    assertThat(runtime).contains("apt-get install -y --no-install-recommends openjdk-17-jre-headless libbpfcc");
    assertThat(runtime).doesNotContain("linux-headers").doesNotContain("openjdk-17-jdk").doesNotContain("maven");
  }

  @Test
  void theDefaultImageCopiesTheJarTheBuildStageProducesAndPrebuiltOneFromTheContext() throws Exception {
    assertThat(stage("FROM runtime")).containsExactly("FROM runtime",
        "COPY --from=build /src/agent/target/segscope.jar /opt/segscope/segscope.jar");
    // scripts/image: --target prebuilt --build-arg JAR=<the jar, relative to the context>
    assertThat(stage("FROM runtime AS prebuilt")).containsExactly("FROM runtime AS prebuilt",
        "ARG JAR=agent/target/segscope.jar", "COPY ${JAR} /opt/segscope/segscope.jar");
    assertThat(stage("FROM ${BUILD_BASE} AS build"))
        .anyMatch(i -> i.startsWith("RUN mvn ") && i.contains(" -pl agent -am package "));
    assertThat(RepoFiles.text("agent/pom.xml")).contains("<finalName>segscope</finalName>");
    JsonNode entry = new ObjectMapper().readTree(starting("ENTRYPOINT").get(0).substring("ENTRYPOINT ".length()));
    List<String> argv = new ArrayList<>();
    entry.forEach(n -> argv.add(n.asText()));
    assertThat(argv.get(0)).isEqualTo("java");
    assertThat(argv).containsSubsequence("-jar", "/opt/segscope/segscope.jar");
    // the root filesystem is read-only in the DaemonSet: JNA must unpack under the /tmp emptyDir
    assertThat(argv).anyMatch(a -> a.startsWith("-Djna.tmpdir=/tmp/"));
    JsonNode cmd = new ObjectMapper().readTree(starting("CMD").get(0).substring("CMD ".length()));
    assertThat(cmd.get(0).asText()).isEqualTo("run");
  }

  @Test
  void copiesEveryModuleTheAgentsBuildNeeds() {
    // the root pom's default modules (the bench profile's are not built here): each one's pom and
    // sources, or "-pl agent -am" does not find the reactor
    String pom = RepoFiles.text("pom.xml");
    String modules = pom.substring(pom.indexOf("<modules>"), pom.indexOf("</modules>"));
    List<String> names = new ArrayList<>();
    Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(modules);
    while (m.find()) {
      names.add(m.group(1));
    }
    assertThat(names).contains("testkit", "device", "probes", "exporters", "agent");
    List<String> copies = starting("COPY");
    for (String module : names) {
      assertThat(copies).as("COPY of module %s", module)
          .contains("COPY " + module + "/pom.xml " + module + "/", "COPY " + module + "/src " + module + "/src");
    }
  }

  @Test
  void runsAsRootWithThePortExposed() {
    assertThat(starting("USER")).containsExactly("USER 0:0");
    assertThat(starting("EXPOSE")).containsExactly("EXPOSE 9810");
  }
}
