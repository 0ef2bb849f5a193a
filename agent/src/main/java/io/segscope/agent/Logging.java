package io.segscope.agent;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

/**
 * One line per log record on stderr: time, level, logger, message. The level is
 * {@code SEGSCOPE_LOG_LEVEL} when set, else the command's default: INFO for {@code run} (its start log
 * names the probe plan, the inventory and the endpoints), WARNING for {@code report} and
 * {@code doctor}, whose result is what a person reads.
 *
 * <p>Records are written to a duplicate of file descriptor 2 taken before any libbcc call: while
 * libbcc compiles or attaches, fd 2 itself points at a capture file (the probes module turns what
 * libbcc prints into reasons and diagnostics), and a record logged meanwhile by another thread must
 * still reach the screen.
 */
public final class Logging {
  /** The environment variable that sets the level. */
  public static final String LEVEL_VARIABLE = "SEGSCOPE_LOG_LEVEL";

  /** The usual names of other logging libraries, mapped to java.util.logging's. */
  private static final Map<String, Level> ALIASES = Map.of("DEBUG", Level.FINE, "TRACE", Level.FINEST,
      "WARN", Level.WARNING, "ERROR", Level.SEVERE);

  private Logging() {}

  /** Installs the stderr handler at INFO (or {@code SEGSCOPE_LOG_LEVEL}). */
  public static void configure() {
    System.setProperty("java.util.logging.SimpleFormatter.format",
        "%1$tFT%1$tT.%1$tLZ %4$-7s %3$s: %5$s%6$s%n");
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    StreamHandler h = new StreamHandler(new Fd2Duplicate(), new SimpleFormatter()) {
      @Override
      public synchronized void publish(LogRecord r) {
        super.publish(r);
        flush();
      }

      @Override
      public synchronized void close() {
        flush();
      }
    };
    h.setLevel(Level.ALL);
    root.addHandler(h);
    root.setLevel(Level.INFO);
    String value = System.getenv(LEVEL_VARIABLE);
    if (value != null && !value.isBlank()) {
      Optional<Level> level = parse(value);
      if (level.isPresent()) {
        root.setLevel(level.get());
      } else {
        System.err.println("segscope: " + LEVEL_VARIABLE + "='" + value.strip() + "' is not a log level "
            + "(SEVERE, WARNING, INFO, FINE, FINER, FINEST, OFF, ALL; or ERROR, WARN, DEBUG, TRACE): using the"
            + " command's default (INFO for run, WARNING for report and doctor)");
      }
    }
    // Netty and Vert.x internals are noisy at INFO.
    Logger.getLogger("io.netty").setLevel(Level.WARNING);
  }

  /**
   * Sets the level a one-shot command logs at unless {@code SEGSCOPE_LOG_LEVEL} chose one: report and
   * doctor use WARNING, so their result on stdout is all a person sees when nothing is wrong.
   */
  public static void defaultLevel(Level level) {
    String value = System.getenv(LEVEL_VARIABLE);
    if (value == null || value.isBlank() || parse(value).isEmpty()) {
      Logger.getLogger("").setLevel(level);
    }
  }

  /** A java.util.logging level name or number, or one of {@link #ALIASES}, case-insensitive. */
  static Optional<Level> parse(String value) {
    String name = value.strip().toUpperCase(Locale.ROOT);
    Level alias = ALIASES.get(name);
    if (alias != null) {
      return Optional.of(alias);
    }
    try {
      return Optional.of(Level.parse(name));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The libc calls to duplicate fd 2 and write to the duplicate. */
  private interface C extends Library {
    int F_DUPFD_CLOEXEC = 1030;

    int fcntl(int fd, int cmd, Object... args);

    long write(int fd, byte[] buffer, long count);
  }

  /**
   * fd 2 as it was at {@link #configure()}, before any libbcc call, duplicated (same open file, same
   * offset, so records interleave correctly with what is printed on System.err). Falls back to
   * System.err when the duplicate cannot be made (JNA unavailable, fd 2 closed).
   */
  private static final class Fd2Duplicate extends OutputStream {
    private final C libc;
    private final int fd;

    Fd2Duplicate() {
      C c = null;
      int dup = -1;
      try {
        c = Native.load("c", C.class);
        dup = c.fcntl(2, C.F_DUPFD_CLOEXEC, 3);
      } catch (LinkageError | RuntimeException e) {
        dup = -1;
      }
      libc = c;
      fd = dup;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      if (fd < 0) {
        System.err.write(b, off, len);
        return;
      }
      byte[] rest = off == 0 && len == b.length ? b : Arrays.copyOfRange(b, off, off + len);
      while (rest.length > 0) {
        long n = libc.write(fd, rest, rest.length);
        if (n <= 0) {
          throw new IOException("write log record to stderr: write returned " + n);
        }
        rest = Arrays.copyOfRange(rest, (int) n, rest.length);
      }
    }

    @Override
    public void flush() {
      System.err.flush();
    }
  }
}
