package io.segscope.agent;

import io.segscope.host.names.NameCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * One line per log record on stderr: time, level, logger, message. The level is
 * {@code SEGSCOPE_LOG_LEVEL} when set, else the command's default: INFO for {@code run} (its start log
 * names the probe plan, the inventory and the endpoints), WARNING for {@code report} and
 * {@code doctor}, whose result is what a person reads.
 *
 * <p>Messages carry device and namespace names, which are tenant-chosen bytes: every record is written
 * in {@link NameCodec#display display form}, so a control byte, an ESC sequence or a line separator in
 * a name is shown as {@code \xHH} and can neither drive the terminal nor forge a log line.
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
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(new DisplayFormatter());
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

  static final class DisplayFormatter extends Formatter {
    private final SimpleFormatter plain = new SimpleFormatter();

    @Override
    public String format(LogRecord record) {
      LogRecord safe = new LogRecord(record.getLevel(), NameCodec.display(formatMessage(record)));
      safe.setInstant(record.getInstant());
      safe.setLoggerName(record.getLoggerName());
      safe.setSourceClassName(record.getSourceClassName());
      safe.setSourceMethodName(record.getSourceMethodName());
      String line = plain.format(safe);
      if (record.getThrown() == null) {
        return line;
      }
      StringWriter trace = new StringWriter();
      record.getThrown().printStackTrace(new PrintWriter(trace));
      StringBuilder b = new StringBuilder(line);
      for (String l : trace.toString().split("\n")) {
        b.append(NameCodec.display(l.replace("\t", "    "))).append('\n');
      }
      return b.toString();
    }
  }
}
