package io.segscope.agent;

import io.segscope.probes.names.NameCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * One line per log record on stderr: time, level, logger, message. Messages carry device and
 * namespace names, which are tenant-chosen bytes: every record is written in
 * {@link NameCodec#display display form}, so a control byte, an ESC sequence or a line separator in
 * a name is shown as {@code \xHH} and can neither drive the terminal nor forge a log line.
 */
public final class Logging {
  private Logging() {}

  public static void configure() {
    System.setProperty("java.util.logging.SimpleFormatter.format",
        "%1$tFT%1$tT.%1$tLZ %4$-7s %3$s: %5$s%6$s%n");
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(new DisplayFormatter());
    h.setLevel(Level.ALL);
    root.addHandler(h);
    String level = System.getenv().getOrDefault("SEGSCOPE_LOG_LEVEL", "INFO");
    try {
      root.setLevel(Level.parse(level.toUpperCase(java.util.Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      root.setLevel(Level.INFO);
    }
    // Netty and Vert.x internals are noisy at INFO.
    Logger.getLogger("io.netty").setLevel(Level.WARNING);
  }

  /**
   * {@link SimpleFormatter}'s line with the message in display form (one line, always) and a
   * stack trace's lines each in display form.
   */
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
