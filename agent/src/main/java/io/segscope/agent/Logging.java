package io.segscope.agent;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/** One line per log record on stderr: time, level, logger, message. */
public final class Logging {
  private Logging() {}

  public static void configure() {
    System.setProperty("java.util.logging.SimpleFormatter.format",
        "%1$tFT%1$tT.%1$tLZ %4$-7s %3$s: %5$s%6$s%n");
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(new SimpleFormatter());
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
}
