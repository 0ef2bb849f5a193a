package io.segscope.agent.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/**
 * {@code --cache-dir DIR|none}: where the compile cache lives ({@link io.segscope.agent.probing.CompileCache}).
 * Without the flag: the first path of systemd's {@code $CACHE_DIRECTORY} (set by {@code CacheDirectory=}),
 * else {@value #DEFAULT}.
 *
 * @param dir the directory, empty for no cache
 */
public record CacheDir(Optional<Path> dir) {
  /** The cache directory when neither the flag nor systemd names one. */
  public static final String DEFAULT = "/var/cache/segscope";

  /** The default for an environment: {@code CACHE_DIRECTORY}'s first absolute path, else {@link #DEFAULT}. */
  public static CacheDir fromEnvironment(Map<String, String> env) {
    String v = env.get("CACHE_DIRECTORY");
    if (v != null) {
      for (String part : v.split(":")) {
        if (part.startsWith("/") && part.length() <= Bounds.PATH_MAX) {
          return new CacheDir(Optional.of(Path.of(part)));
        }
      }
    }
    return new CacheDir(Optional.of(Path.of(DEFAULT)));
  }

  /** Parses the flag's value: an absolute path, or {@code none}. */
  public static CacheDir parse(String value) {
    if (value.equals("none")) {
      return new CacheDir(Optional.empty());
    }
    if (!value.startsWith("/") || value.length() > Bounds.PATH_MAX || value.indexOf('\0') >= 0) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not an absolute path of at most "
          + Bounds.PATH_MAX + " bytes, or 'none'");
    }
    return new CacheDir(Optional.of(Path.of(value)));
  }

  /** picocli's converter. */
  public static final class Converter implements CommandLine.ITypeConverter<CacheDir> {
    @Override
    public CacheDir convert(String value) {
      return parse(value);
    }
  }
}
