package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class LoggingTest {

  @Test
  void aLogLineCarriesNoControlByteAndStaysOneLine() {
    String key = "java.util.logging.SimpleFormatter.format";
    String before = System.getProperty(key);
    System.setProperty(key, "%4$s %3$s: %5$s%6$s%n");
    try {
      check();
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
  }

  private static void check() {
    LogRecord r = new LogRecord(Level.WARNING, "skip device {0}: forged\n2026-12-01 INFO fake line");
    r.setParameters(new Object[] {"e\u001b[31m\u2028"});
    r.setLoggerName("io.segscope.test");
    String line = new Logging.DisplayFormatter().format(r);
    assertThat(line).isEqualTo("WARNING io.segscope.test: skip device e\\x1b[31m\\xe2\\x80\\xa8: forged\\x0a2026-12-01 "
        + "INFO fake line" + System.lineSeparator());
    LogRecord t = new LogRecord(Level.WARNING, "read probes: failed");
    t.setLoggerName("io.segscope.test");
    t.setThrown(new IllegalStateException("device \u001c gone"));
    String withTrace = new Logging.DisplayFormatter().format(t);
    assertThat(withTrace).contains("java.lang.IllegalStateException: device \\x1c gone").doesNotContain("\u001c");
  }

  @Test
  void levelsAreJavaUtilLoggingNamesOrNumbersOrTheUsualAliasesInAnyCase() {
    assertThat(Logging.parse("WARNING")).contains(Level.WARNING);
    assertThat(Logging.parse(" fine ")).contains(Level.FINE);
    assertThat(Logging.parse("800")).contains(Level.INFO);
    assertThat(Logging.parse("debug")).contains(Level.FINE);
    assertThat(Logging.parse("TRACE")).contains(Level.FINEST);
    assertThat(Logging.parse("warn")).contains(Level.WARNING);
    assertThat(Logging.parse("Error")).contains(Level.SEVERE);
    assertThat(Logging.parse("OFF")).contains(Level.OFF);
  }

  @Test
  void anythingElseIsNoLevel() {
    assertThat(Logging.parse("loud")).isEmpty();
    assertThat(Logging.parse("$(reboot)")).isEmpty();
    assertThat(Logging.parse("")).isEmpty();
  }
}
