package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import org.junit.jupiter.api.Test;

class LoggingTest {

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
