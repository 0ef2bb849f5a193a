package io.segscope.probes.bcc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Process-wide facts about libbcc: which libbcc is installed and whether the binding can use it.
 *
 * <p>The binding is written against libbcc 0.26 (Debian package {@code libbpfcc} 0.26.0); its
 * function signatures changed between releases, so {@link #requireCompatible()} refuses anything
 * else before a single bcc function is called. libbcc has no runtime version call: the version is
 * taken from the loaded library's file name ({@code libbcc.so.0.26.0}), else from dpkg, else from
 * the file name found in the usual library directories.
 */
public final class Bcc {
  /** The Debian package that ships {@code libbcc.so.0}. */
  public static final String DEBIAN_PACKAGE = "libbpfcc";
  /** The libbcc release series this binding is written against. */
  public static final String SUPPORTED_SERIES = "0.26";

  private static final Pattern LIBRARY_FILE = Pattern.compile("libbcc\\.so\\.0\\.(\\d+\\.\\d+)(?:\\.\\S*)?");
  private static final Pattern DEBIAN_UPSTREAM = Pattern.compile("(?:\\d+:)?(\\d+(?:\\.\\d+)+)(?:[+~-].*)?");
  private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu",
      "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64",
      "/usr/lib", "/usr/local/lib64", "/usr/local/lib");

  private static volatile LibBcc library;
  private static volatile String loadFailure;

  private Bcc() {}

  /**
   * The installed libbcc version, e.g. {@code "0.26.0"}, or {@code "unknown"} when neither the
   * library file name nor dpkg tells it.
   */
  public static String libraryVersion() {
    return versionOfLoadedLibrary()
        .or(Bcc::versionFromDpkg)
        .or(Bcc::versionFromLibraryDirs)
        .orElse("unknown");
  }

  /**
   * Checks that {@code libbcc.so.0} loads and is a 0.26.x release.
   *
   * @throws BccException naming the Debian package {@code libbpfcc} and what was found instead
   */
  public static void requireCompatible() throws BccException {
    library();
    Optional<String> problem = incompatibility(libraryVersion());
    if (problem.isPresent()) {
      throw new BccException("check", "libbcc version", problem.get());
    }
  }

  /** Why {@code version} will not do, or empty when it is a 0.26.x release. */
  static Optional<String> incompatibility(String version) {
    if (isCompatibleVersion(version)) {
      return Optional.empty();
    }
    return Optional.of("found " + version + ", need " + SUPPORTED_SERIES + ".x (install the Debian package "
        + DEBIAN_PACKAGE + " " + SUPPORTED_SERIES + ", or put libbcc.so." + SUPPORTED_SERIES
        + ".x on the library path)");
  }

  /** The loaded library, loading it on first use. */
  static LibBcc library() throws BccException {
    LibBcc loaded = library;
    if (loaded != null) {
      return loaded;
    }
    synchronized (Bcc.class) {
      if (library == null && loadFailure == null) {
        try {
          library = LibBcc.load();
        } catch (UnsatisfiedLinkError e) {
          loadFailure = e.getMessage();
        }
      }
      if (library == null) {
        throw new BccException("dlopen", LibBcc.SONAME, loadFailure + " (install the Debian package "
            + DEBIAN_PACKAGE + " " + SUPPORTED_SERIES + "; found: " + libraryVersion() + ")");
      }
      return library;
    }
  }

  /** {@code "0.26.0"} from a Debian version such as {@code "0.26.0+ds-1"}; empty if it is none. */
  static Optional<String> versionFromDebian(String debianVersion) {
    Matcher m = DEBIAN_UPSTREAM.matcher(debianVersion.strip());
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** {@code "0.26.0"} from a file name such as {@code "libbcc.so.0.26.0"}; empty for the bare SONAME. */
  static Optional<String> versionFromFileName(String fileName) {
    Matcher m = LIBRARY_FILE.matcher(fileName);
    return m.matches() ? Optional.of(fileName.substring("libbcc.so.".length())) : Optional.empty();
  }

  /** True for {@code "0.26"} and {@code "0.26.x"}. */
  static boolean isCompatibleVersion(String version) {
    return version.equals(SUPPORTED_SERIES) || version.startsWith(SUPPORTED_SERIES + ".");
  }

  private static Optional<String> versionOfLoadedLibrary() {
    if (library == null) {
      return Optional.empty();
    }
    try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.map(line -> line.substring(line.lastIndexOf(' ') + 1))
          .filter(path -> path.contains("/libbcc.so."))
          .map(path -> Path.of(path).getFileName().toString())
          .map(Bcc::versionFromFileName)
          .flatMap(Optional::stream)
          .findFirst();
    } catch (IOException | UncheckedIOException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> versionFromDpkg() {
    try {
      Process dpkg = new ProcessBuilder("dpkg-query", "-W", "-f=${db:Status-Status} ${Version}",
          DEBIAN_PACKAGE).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(dpkg.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!dpkg.waitFor(5, TimeUnit.SECONDS)) {
        dpkg.destroyForcibly();
        return Optional.empty();
      }
      if (dpkg.exitValue() != 0 || !out.startsWith("installed ")) {
        return Optional.empty();
      }
      return versionFromDebian(out.substring("installed ".length()));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static Optional<String> versionFromLibraryDirs() {
    for (String dir : LIBRARY_DIRS) {
      Path soname = Path.of(dir, LibBcc.SONAME);
      if (Files.exists(soname)) {
        try {
          Optional<String> version = versionFromFileName(soname.toRealPath().getFileName().toString());
          if (version.isPresent()) {
            return version;
          }
        } catch (IOException e) {
          // dangling link: try the next directory
        }
      }
    }
    return Optional.empty();
  }
}
