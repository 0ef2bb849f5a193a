package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String raw : RepoFiles.text(FILE).split("\n")) {
      String line = raw.strip();
      if (line.startsWith("#") || (line.isEmpty() && cur.length() == 0)) {
        continue;
      }
      boolean more = line.endsWith("\\");
      cur.append(more ? line.substring(0, line.length() - 1) : line).append(' ');
      if (!more) {
        out.add(cur.toString().strip().replaceAll("\\s+", " "));
        cur.setLength(0);
      }
    }
    return out;
  }

  private static List<String> starting(String keyword) {
    return instructions().stream().filter(i -> i.startsWith(keyword + " ")).toList();
  }

  @Test
  void buildsOnDebianBookwormAndRunsOnItsSlimVariant() {
    List<String> from = starting("FROM");
    assertThat(from).hasSize(2);
    assertThat(from.get(0)).startsWith("FROM docker.io/library/debian:bookworm ").endsWith(" AS build");
    assertThat(from.get(1)).isEqualTo("FROM docker.io/library/debian:bookworm-slim");
  }

  @Test
  void runtimeInstallsLibbccAndAJre17ButNoCompilerOrHeaders() {
    String runtime = String.join("\n", instructions().subList(instructions().indexOf(starting("FROM").get(1)),
        instructions().size()));
    assertThat(runtime).contains("apt-get install -y --no-install-recommends openjdk-17-jre-headless libbpfcc");
    assertThat(runtime).doesNotContain("linux-headers").doesNotContain("openjdk-17-jdk").doesNotContain("maven");
  }

  @Test
  void copiesTheJarTheBuildProducesAndRunsIt() throws Exception {
    String copy = starting("COPY").stream().filter(c -> c.startsWith("COPY --from=build")).findFirst().orElseThrow();
    assertThat(copy).isEqualTo("COPY --from=build /src/agent/target/segscope.jar /opt/segscope/segscope.jar");
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
