package io.segscope.agent.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads a file an operator names on the command line (--advice-config, --web.config.file and the
 * certificates it names): a regular file (following links), of at most a bound of bytes. Anything
 * else is refused before it is opened or read in full: a device such as /dev/zero would never end, a
 * FIFO would block the start, and a file that is larger than its bound, or grows past it while it is
 * read, would take the heap.
 */
public final class ConfigFile {
  private ConfigFile() {}

  /** Why a file named on the command line cannot be used; the message names the file, then the reason. */
  public static final class RefusedException extends IOException {
    private final String reason;

    RefusedException(Path file, String reason) {
      super(file + " " + reason);
      this.reason = reason;
    }

    /** The reason alone: {@code does not exist}, {@code is not a regular file}, {@code is larger than N bytes}. */
    public String reason() {
      return reason;
    }
  }

  /**
   * The bytes of {@code file}.
   *
   * @throws RefusedException {@code FILE does not exist}, {@code FILE is not a regular file} or
   *         {@code FILE is larger than N bytes}
   * @throws IOException the cause when the file cannot be read
   */
  public static byte[] read(Path file, int maxBytes) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new RefusedException(file, "does not exist");
    }
    if (!attributes.isRegularFile()) {
      throw new RefusedException(file, "is not a regular file");
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw new RefusedException(file, "is larger than " + maxBytes + " bytes");
      }
      return bytes;
    }
  }
}
