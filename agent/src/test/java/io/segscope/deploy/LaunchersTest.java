package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.compile.CompilerProcess;
import io.segscope.testkit.deploy.RepoFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way segscope is launched ends the JVM on an OutOfMemoryError (-XX:+ExitOnOutOfMemoryError)
 * instead of leaving it half-alive: the {@code ./segscope} launcher (run for real, with a {@code java}
 * on PATH that records its arguments), the systemd unit's ExecStart, the image's ENTRYPOINT and the
 * compiler child. The unit also gives the agent its compile cache directory.
 */
class LaunchersTest {
  private static final String FLAG = "-XX:+ExitOnOutOfMemoryError";

  /** Runs a copy of ./segscope in a scratch root whose jar is up to date, with a recording java. */
  private static List<String> launcherArgv(Path tmp, Map<String, String> env) throws Exception {
    Path root = tmp.resolve("root");
    Files.createDirectories(root.resolve("scripts"));
    for (String d : List.of("device", "probes", "exporters", "agent/target")) {
      Files.createDirectories(root.resolve(d));
    }
    Files.writeString(root.resolve("pom.xml"), "<project/>\n");
    Files.copy(RepoFiles.root().resolve("segscope"), root.resolve("segscope"));
    Path setup = root.resolve("scripts/setup");
    Files.writeString(setup, "#!/bin/sh\nexit 0\n"); // the real one installs packages when run as root
    Path jar = root.resolve("agent/target/segscope.jar");
    Files.writeString(jar, "not a jar: java below never opens it\n");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    Path bin = tmp.resolve("bin");
    Files.createDirectories(bin);
    Path argv = tmp.resolve("argv");
    Files.writeString(bin.resolve("java"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + argv
        + "\nprintf %s \"$MALLOC_ARENA_MAX\" > " + tmp.resolve("arenas") + "\n");
    for (Path p : List.of(setup, root.resolve("segscope"), bin.resolve("java"))) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    ProcessBuilder pb = new ProcessBuilder(root.resolve("segscope").toString(), "run", "--listen", ":9810")
        .redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("SEGSCOPE_JAVA_OPTS");
    pb.environment().remove("MALLOC_ARENA_MAX");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return Files.readAllLines(argv);
  }

  @Test
  void theLauncherPassesItWhateverSegscopeJavaOptsSays(@TempDir Path tmp) throws Exception {
    List<String> argv = launcherArgv(tmp, Map.of());
    assertThat(argv).startsWith(FLAG, "-Xms16m", "-Xmx192m", "-XX:+UseSerialGC", "-XX:MinHeapFreeRatio=10",
        "-XX:MaxHeapFreeRatio=30", "-XX:-ShrinkHeapInSteps", "-XX:TrimNativeHeapInterval=5000",
        "-XX:TieredStopAtLevel=1", "-jar");
    assertThat(argv.subList(argv.size() - 3, argv.size())).containsExactly("run", "--listen", ":9810");
    // what tests that start the jar themselves read from the script is what it passes
    assertThat(argv.subList(0, argv.indexOf("-jar"))).isEqualTo(LauncherScript.javaOptions());
  }

  @Test
  void theLauncherLimitsMallocArenasUnlessTheCallerSaysOtherwise(@TempDir Path tmp) throws Exception {
    assertThat(LauncherScript.environment()).isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
    launcherArgv(tmp.resolve("unset"), Map.of());
    assertThat(Files.readString(tmp.resolve("unset/arenas"))).isEqualTo("2");
    launcherArgv(tmp.resolve("set"), Map.of("MALLOC_ARENA_MAX", "4"));
    assertThat(Files.readString(tmp.resolve("set/arenas"))).isEqualTo("4");
  }

  @Test
  void customJavaOptsAddToItAndComeLater(@TempDir Path tmp) throws Exception {
    List<String> argv = launcherArgv(tmp, Map.of("SEGSCOPE_JAVA_OPTS", "-Xmx96m -XX:+UseG1GC"));
    assertThat(argv).startsWith(FLAG, "-Xmx96m", "-XX:+UseG1GC", "-jar");
  }

  @Test
  void theSystemdUnitAndTheImagePassItAndTheUnitGivesACacheDirectory() {
    String exec = SystemdUnitTest.service().get("ExecStart").get(0);
    assertThat(exec.split("\\s+")).contains(FLAG);
    assertThat(exec.indexOf(FLAG)).isLessThan(exec.indexOf("-jar"));
    assertThat(SystemdUnitTest.service().get("CacheDirectory")).containsExactly("segscope");
    assertThat(SystemdUnitTest.service().get("CacheDirectoryMode")).containsExactly("0700");
    String containerfile = RepoFiles.text("deploy/container/Containerfile");
    String entrypoint = containerfile.lines().filter(l -> l.startsWith("ENTRYPOINT")).findFirst().orElseThrow();
    assertThat(entrypoint).contains("\"" + FLAG + "\"");
  }

  @Test
  void theCompilerChildPassesIt() {
    List<String> child = CompilerProcess.sameJvm();
    assertThat(child).contains(FLAG, "-XX:-UsePerfData");
    assertThat(child.indexOf(FLAG)).isLessThan(child.indexOf("-cp"));
  }
}
