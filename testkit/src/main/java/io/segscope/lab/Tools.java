package io.segscope.lab;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the executables the lab shells out to. Searches {@code PATH} and then the sbin/bin directories
 * (root tools live in /usr/sbin, which a non-login PATH may lack); commands are always run by absolute path.
 */
public final class Tools {
  private static final List<String> FALLBACK_DIRS = List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
      "/usr/bin", "/sbin", "/bin");
  private static final Pattern VERSIONED_CLANG = Pattern.compile("clang-(\\d+)");

  private Tools() {
  }

  /** The absolute path of executable {@code name}, if one is installed. */
  public static Optional<Path> find(String name) {
    for (Path dir : searchDirs()) {
      Path p = dir.resolve(name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The absolute path of {@code name}; throws a {@link LabException} naming the tool if it is missing. */
  public static String require(String name) {
    return find(name).map(Path::toString)
        .orElseThrow(() -> new LabException("find tool " + name + ": not installed (searched PATH and "
            + String.join(":", FALLBACK_DIRS) + ")"));
  }

  /**
   * A clang able to target BPF: {@code clang}, else the newest {@code clang-N} on the search path, else
   * {@code /usr/lib/llvm-N/bin/clang}.
   */
  public static Optional<Path> clang() {
    Optional<Path> plain = find("clang");
    if (plain.isPresent()) {
      return plain;
    }
    List<Path> candidates = new ArrayList<>();
    for (Path dir : searchDirs()) {
      candidates.addAll(list(dir, "clang-"));
    }
    candidates.addAll(list(Path.of("/usr/lib"), "llvm-").stream().map(d -> d.resolve("bin/clang")).toList());
    return candidates.stream()
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .filter(p -> VERSIONED_CLANG.matcher(p.getFileName().toString()).matches()
            || p.getFileName().toString().equals("clang"))
        .max(Comparator.comparingInt(Tools::llvmVersion));
  }

  private static int llvmVersion(Path p) {
    for (Path part : p) {
      String s = part.toString().replaceFirst("^(clang|llvm)-", "");
      if (s.matches("\\d+")) {
        return Integer.parseInt(s);
      }
    }
    return 0;
  }

  private static List<Path> list(Path dir, String namePrefix) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith(namePrefix)).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static Set<Path> searchDirs() {
    Set<Path> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(File.pathSeparator)) {
        if (!d.isBlank() && d.startsWith("/")) {
          dirs.add(Path.of(d));
        }
      }
    }
    FALLBACK_DIRS.forEach(d -> dirs.add(Path.of(d)));
    return dirs;
  }
}
