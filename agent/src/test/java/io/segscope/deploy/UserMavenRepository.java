package io.segscope.deploy;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A Maven local repository as a new user's machine or a container build has it: every third-party
 * artifact this machine's repository holds, and no {@code io.segscope} artifact, whatever an earlier
 * {@code mvn install} left there. A build pointed at it ({@code -Dmaven.repo.local}) resolves the
 * project's own modules from its reactor or fails, as it would on that machine.
 *
 * <p>Artifacts are hard links to the machine's files (3,000+ files in well under a second, no space);
 * the files Maven rewrites in place (resolver state, metadata, {@code *.lastUpdated}) are copies, so
 * nothing a build does here changes the machine's repository.
 */
final class UserMavenRepository implements AutoCloseable {
  private static final Set<String> ARTIFACT_SUFFIXES = Set.of(".jar", ".pom", ".sha1", ".md5", ".exe", ".asc");

  private final Path dir;

  private UserMavenRepository(Path dir) {
    this.dir = dir;
  }

  /** The repository of the Maven run that runs this test ({@code segscope.m2}), else ~/.m2/repository. */
  static Path machineRepository() {
    String configured = System.getProperty("segscope.m2");
    return configured != null && !configured.isBlank() ? Path.of(configured)
        : Path.of(System.getProperty("user.home"), ".m2", "repository");
  }

  /** A copy of {@code machine} under {@code parent}, without {@code io/segscope}. */
  static UserMavenRepository withoutSegscope(Path machine, Path parent) throws IOException {
    if (!Files.isDirectory(machine)) {
      throw new IOException("copy the Maven repository " + machine + ": not a directory");
    }
    Path dir = Files.createTempDirectory(parent, "segscope-m2-");
    Path own = machine.resolve("io").resolve("segscope");
    Files.walkFileTree(machine, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
        if (d.equals(own)) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        Files.createDirectories(dir.resolve(machine.relativize(d).toString()));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
        if (!attrs.isRegularFile()) {
          return FileVisitResult.CONTINUE;
        }
        Path to = dir.resolve(machine.relativize(f).toString());
        String name = f.getFileName().toString();
        if (ARTIFACT_SUFFIXES.stream().anyMatch(name::endsWith)) {
          Files.createLink(to, f);
        } else {
          Files.copy(f, to);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return new UserMavenRepository(dir);
  }

  Path dir() {
    return dir;
  }

  /** True when a build left an {@code io.segscope} artifact here (it must not: nothing runs mvn install). */
  boolean holdsSegscope() {
    return Files.exists(dir.resolve("io").resolve("segscope"));
  }

  /** The flag that points a Maven run at this repository. */
  String mavenFlag() {
    return "-Dmaven.repo.local=" + dir;
  }

  @Override
  public void close() throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
