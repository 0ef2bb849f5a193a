package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.Prerequisites;
import io.segscope.testing.Readiness;
import io.segscope.testkit.deploy.RepoFiles;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * segscope as a new user meets it: a fresh copy of this checkout's sources (what {@code git clone}
 * gives: tracked and unignored files, no {@code target/}, no jar) under /tmp, where people try
 * things, driven only through {@code ./segscope}.
 *
 * <p>Every Maven run here (the launcher's builds, the Containerfile's build stage) uses a Maven
 * repository as a user's machine or a container build has it: the third-party artifacts of this
 * machine's repository and no {@code io.segscope} artifact ({@link UserMavenRepository}), so that a
 * build that leans on something an earlier {@code mvn install} left behind fails here as it would
 * there.
 *
 * <ul>
 *   <li>the launcher builds the missing jar, then rebuilds exactly when a jar input (a pom.xml or a
 *       file under src/main) is newer than the jar, and prints nothing when it does not build;
 *   <li>the first screens of {@code --help}, {@code doctor}, {@code report} and {@code run} carry
 *       only segscope's own words on stderr: no line from find, libbcc, Maven or the JVM;
 *   <li>the Containerfile's build stage, its COPY instructions and its {@code mvn ... package} run
 *       as written, builds the jar from the sources alone;
 *   <li>the DaemonSet-confined agent ({@link ConfinedAgent}, which covers /tmp with a tmpfs) runs the
 *       jar of that checkout under /tmp.
 * </ul>
 *
 * Every test works from the copy alone; the first also checks the very first build, so the class
 * runs it first, and the others build the jar themselves when run alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FreshCloneIT {
  private static final Duration BUILD_LIMIT = Duration.ofMinutes(6);
  private static final String JAR = "agent/target/segscope.jar";

  /** A line segscope itself prints on stderr: its messages, report progress, setup's changes, its log records. */
  private static final List<Pattern> OWN_WORDS = List.of(
      Pattern.compile("^segscope( [a-z]+)?: .*"),
      Pattern.compile("^sampling: \\d+/\\d+ s$"),
      Pattern.compile("^setup: .*"),
      Pattern.compile(
          "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST) +io\\.segscope\\.\\S+: .*"));

  /** What the issue saw, named so that a failure says what leaked: find, libbcc, the JVM, Maven. */
  private static final List<Pattern> FOREIGN = List.of(Pattern.compile("^find: .*"),
      Pattern.compile("^(bpf|libbpf|libbcc): .*"), Pattern.compile("^(WARNING|OpenJDK|Picked up) .*"),
      Pattern.compile(".*Exception.*"), Pattern.compile("^\\tat .*"), Pattern.compile(".*\u001b\\[.*"));

  private Path clone;
  private UserMavenRepository m2;

  @BeforeAll
  void copyTheCheckout() throws Exception {
    if (!"0".equals(run(Path.of("/"), Duration.ofSeconds(10), "id", "-u").stdout().strip())) {
      Prerequisites.unmet("the launcher's first screens need root (setup, doctor, report, run)");
    }
    Tool git = new Tool(Path.of("/usr/bin/git"), "apt-get install git").require();
    Path repo = RepoFiles.root();
    clone = Files.createTempDirectory(Path.of("/tmp"), "segscope-clone-");
    Result files = run(repo, Duration.ofSeconds(60), git.executable().toString(), "-c", "safe.directory=*",
        "ls-files", "-z", "--cached", "--others", "--exclude-standard");
    assertThat(files.exitCode()).as("git ls-files in %s: %s", repo, files.stderr()).isZero();
    int copied = 0;
    for (String name : files.stdout().split("\0")) {
      Path from = repo.resolve(name);
      if (name.isEmpty() || !Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
        continue; // deleted in the work tree, not yet in the index
      }
      Path to = clone.resolve(name);
      Files.createDirectories(to.getParent());
      Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      copied++;
    }
    assertThat(clone.resolve("segscope")).as("the launcher in the copy").isExecutable();
    assertThat(clone.resolve(JAR)).as("a fresh copy has no jar").doesNotExist();
    System.out.printf("fresh copy of %s: %d files in %s%n", repo, copied, clone);
    m2 = UserMavenRepository.withoutSegscope(UserMavenRepository.machineRepository(), Path.of("/tmp"));
    assertThat(m2.holdsSegscope()).as("the user's Maven repository %s", m2.dir()).isFalse();
    System.out.printf("Maven repository without io.segscope: %s%n", m2.dir());
  }

  @AfterAll
  void removeTheCopy() throws IOException {
    if (m2 != null) {
      m2.close();
    }
    if (clone == null) {
      return;
    }
    Files.walkFileTree(clone, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  @Test
  @Order(1)
  void theLauncherBuildsTheMissingJarThenExactlyWhenASourceIsNewer() throws Exception {
    Path jar = clone.resolve(JAR);
    Files.deleteIfExists(jar);

    Result first = launch(BUILD_LIMIT, "--help");
    assertThat(first.exitCode()).as("first ./segscope --help: %s", first).isZero();
    assertThat(first.stdout()).startsWith("Usage: segscope");
    assertThat(first.stderrLines()).as("stderr of the first --help")
        .containsExactly("segscope: building " + JAR + " (it is missing) ...");
    assertThat(jar).isRegularFile();
    FileTime built = Files.getLastModifiedTime(jar);

    Result again = launch(BUILD_LIMIT, "--help");
    assertThat(again.exitCode()).isZero();
    assertThat(again.stderr()).as("stderr of --help when no source is newer than the jar").isEmpty();
    assertThat(Files.getLastModifiedTime(jar)).as("jar untouched without a newer source").isEqualTo(built);

    // a test source is no input of the jar
    touch(clone.resolve("agent/src/test/java/io/segscope/deploy/FreshCloneIT.java"));
    Result testTouched = launch(BUILD_LIMIT, "--help");
    assertThat(testTouched.stderr()).as("stderr of --help after touching a test source").isEmpty();
    assertThat(Files.getLastModifiedTime(jar)).isEqualTo(built);

    String source = "probes/src/main/java/io/segscope/probes/ProbeMode.java";
    touch(clone.resolve(source));
    Result rebuilt = launch(BUILD_LIMIT, "--help");
    assertThat(rebuilt.exitCode()).as("--help after touching %s: %s", source, rebuilt).isZero();
    assertThat(rebuilt.stderrLines()).as("stderr of --help after touching %s", source)
        .containsExactly("segscope: building " + JAR + " (" + source + " changed) ...");
    assertThat(Files.getLastModifiedTime(jar)).as("the jar was rebuilt").isGreaterThan(built);

    Result settled = launch(BUILD_LIMIT, "--help");
    assertThat(settled.stderr()).as("stderr of the --help after the rebuild").isEmpty();
    assertThat(m2.holdsSegscope()).as("a build installed io.segscope artifacts into %s", m2.dir()).isFalse();
  }

  /**
   * The Containerfile's build stage as a container build runs it: a directory holding only what its
   * COPY instructions copy from the checkout, then each of its {@code RUN mvn ... package} commands
   * (the ones that build the jar; the dependency prefetch needs the network a container build has),
   * with a Maven repository that holds no {@code io.segscope} artifact.
   */
  @Test
  @Order(5)
  void theContainerfilesBuildStageBuildsTheJarFromTheSourcesAlone() throws Exception {
    List<String> build = ContainerImage.stage(Files.readString(clone.resolve("deploy/container/Containerfile")), 0);
    Path src = Files.createTempDirectory(Path.of("/tmp"), "segscope-image-build-");
    try {
      List<String> packageRuns = new ArrayList<>();
      for (String instruction : build) {
        if (instruction.startsWith("COPY ") && !instruction.contains("--from=")) {
          String[] words = instruction.substring(5).strip().split(" ");
          assertThat(words).as("COPY with one source and one destination: %s", instruction).hasSize(2);
          copyTree(clone.resolve(words[0]), src.resolve(words[1].endsWith("/") ? words[1] + fileName(words[0])
              : words[1]));
        } else if (instruction.startsWith("RUN mvn ") && instruction.contains(" package")) {
          packageRuns.add(instruction.substring(4));
        }
      }
      assertThat(packageRuns).as("the build stage's mvn package commands:%n%s", String.join("\n", build))
          .isNotEmpty();
      assertThat(src.resolve("bench")).as("the build stage does not copy the bench module").doesNotExist();
      for (String command : packageRuns) {
        Result r = run(src, BUILD_LIMIT, "/bin/sh", "-c", command);
        assertThat(r.exitCode()).as("the Containerfile's build stage: %s%n%s", command, r).isZero();
      }
      assertThat(src.resolve(JAR)).as("the jar the runtime stage copies").isRegularFile();
      assertThat(m2.holdsSegscope()).as("the build stage installed io.segscope artifacts into %s", m2.dir())
          .isFalse();
    } finally {
      try (var all = Files.walk(src)) {
        all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  @Test
  @Order(2)
  void doctorAndReportSpeakOnlySegscopesWords() throws Exception {
    ensureBuilt();
    Result doctor = launch(Duration.ofMinutes(3), "doctor");
    assertThat(doctor.exitCode()).as("./segscope doctor: %s", doctor).isZero();
    assertThat(doctor.stdout()).startsWith("segscope doctor: kernel ").contains("\nready: ");
    assertOwnWordsOnly("doctor", doctor);
    assertThat(doctor.stderrLines()).as("doctor logs at WARNING and above by default")
        .noneMatch(l -> l.contains(" INFO "));

    Result report = launch(Duration.ofMinutes(3), "report", "--duration", "2s");
    assertThat(report.exitCode()).as("./segscope report: %s", report).isZero();
    assertThat(report.stdout()).as("the report, alone on stdout").startsWith("segscope report: ")
        .contains("Recommendations: ");
    assertOwnWordsOnly("report", report);
    assertThat(report.stderrLines()).as("report's stderr: progress, then WARNING and above only")
        .contains("segscope report: compiling and attaching the probes ...", "sampling: 2/2 s")
        .noneMatch(l -> l.contains(" INFO "));
  }

  @Test
  @Order(3)
  void runStartsWithSegscopesOwnWordsOnly() throws Exception {
    ensureBuilt();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path out = Files.createTempFile("segscope-run", ".out");
    Path err = Files.createTempFile("segscope-run", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(clone.resolve("segscope").toString(), "run", "--listen",
          "127.0.0.1:" + port, "--interval", "1s").directory(clone.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      userEnvironment(pb.environment());
      Process p = pb.start();
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      try {
        Readiness.await("./segscope run", p, () -> http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/readyz")).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode(), Duration.ofSeconds(120),
            () -> text(err));
      } finally {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor();
        }
      }
      Result run = new Result(p.exitValue(), text(out), text(err));
      assertThat(run.exitCode()).as("./segscope run after SIGTERM: %s", run).isZero();
      assertOwnWordsOnly("run", run);
      assertThat(run.stderr()).as("run's start log names the plan and the endpoints")
          .contains("probe plan: gso_tx: ").contains("serving GET /metrics");
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  @Order(4)
  void theConfinedAgentRunsTheJarOfACheckoutUnderTmp() throws Exception {
    Tool.UNSHARE.require();
    Tool.SETPRIV.require();
    Path jar = ensureBuilt();
    assertThat(jar.startsWith(Path.of("/tmp"))).as("the jar under test lives under /tmp: %s", jar).isTrue();
    Path logDir = Files.createTempDirectory("segscope-confined");
    try (ConfinedAgent agent = ConfinedAgent.start(jar, logDir, "--interval", "1s")) {
      agent.awaitReady(Duration.ofSeconds(120));
      assertThat(agent.effectiveCapabilities()).as("the agent's effective capabilities")
          .isEqualTo(new TreeSet<>(KubernetesManifestsTest.CAPABILITIES));
      assertThat(agent.sees(Path.of(ConfinedAgent.IMAGE_JAR))).as("the jar at the image's path").isTrue();
      assertThat(agent.sees(clone.resolve("pom.xml"))).as("the checkout is hidden from the confined agent")
          .isFalse();
      HttpResponse<String> metrics = agent.get("/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("segscope_build_info{");
    } finally {
      Files.walk(logDir).sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  // ---- helpers

  private void assertOwnWordsOnly(String command, Result r) {
    for (String line : r.stderrLines()) {
      assertThat(FOREIGN).as("./segscope %s printed a line that is not segscope's: '%s'%nstderr:%n%s", command,
          line, r.stderr()).noneMatch(p -> p.matcher(line).matches());
      assertThat(OWN_WORDS).as("./segscope %s printed a line that is not segscope's: '%s'%nstderr:%n%s", command,
          line, r.stderr()).anyMatch(p -> p.matcher(line).matches());
    }
  }

  private Path ensureBuilt() throws Exception {
    Path jar = clone.resolve(JAR);
    if (!Files.isRegularFile(jar)) {
      Result r = launch(BUILD_LIMIT, "--version");
      assertThat(r.exitCode()).as("build the jar in the copy: %s", r).isZero();
    }
    return jar;
  }

  private static void touch(Path file) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now()));
  }

  private static String fileName(String path) {
    String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return p.substring(p.lastIndexOf('/') + 1);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var all = Files.walk(from)) {
      for (Path f : all.toList()) {
        Path dest = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(dest);
        } else {
          Files.createDirectories(dest.getParent());
          Files.copy(f, dest, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
  }

  private Result launch(Duration limit, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(clone.resolve("segscope").toString()));
    cmd.addAll(List.of(args));
    return run(clone, limit, cmd.toArray(String[]::new));
  }

  /**
   * The environment of a new user's shell: no segscope settings, no JVM option variables (the JVM
   * announces those on stderr), nothing of the Maven run that runs this test, and Maven pointed at
   * the user's repository (once it is made), which holds no io.segscope artifact.
   */
  private void userEnvironment(Map<String, String> env) {
    env.keySet().removeIf(k -> k.startsWith("SEGSCOPE_") || (k.startsWith("MAVEN_") && !k.equals("MAVEN_OPTS"))
        || k.equals("JAVA_TOOL_OPTIONS") || k.equals("_JAVA_OPTIONS") || k.equals("JDK_JAVA_OPTIONS"));
    if (m2 != null) {
      String opts = env.getOrDefault("MAVEN_OPTS", "").strip();
      env.put("MAVEN_OPTS", (opts.isEmpty() ? "" : opts + " ") + m2.mavenFlag());
    }
  }

  record Result(int exitCode, String stdout, String stderr) {
    List<String> stderrLines() {
      return stderr.lines().filter(l -> !l.isBlank()).toList();
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  /** A file as text; bytes that are not UTF-8 (other labs' device names in a report) become U+FFFD. */
  private static String text(Path file) throws IOException {
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }

  private Result run(Path dir, Duration limit, String... cmd) throws Exception {
    Path out = Files.createTempFile("segscope-fresh", ".out");
    Path err = Files.createTempFile("segscope-fresh", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
          .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      userEnvironment(pb.environment());
      Process p = pb.start();
      if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError(String.join(" ", cmd) + ": no exit within " + limit + "; stderr:\n" + text(err));
      }
      return new Result(p.exitValue(), text(out), text(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
