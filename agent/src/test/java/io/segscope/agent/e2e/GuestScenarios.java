package io.segscope.agent.e2e;

import java.time.Duration;
import java.util.Set;

/**
 * S1/S2/S3 and their controls in the mode named by the system property {@code segscope.guest.mode}
 * ({@code kprobe} or {@code fentry}). Not a *Test/*IT: Maven never runs it on the host; GuestModesIT
 * runs it inside Debian's stock kernel under qemu with the JUnit console launcher. Timeouts allow for
 * emulation (~100x slower than hardware).
 */
class GuestScenarios extends ScenarioSuite {
  static final String MODE_PROPERTY = "segscope.guest.mode";

  @Override
  String mode() {
    String mode = System.getProperty(MODE_PROPERTY, "");
    if (!Set.of("kprobe", "fentry").contains(mode)) {
      throw new IllegalStateException("run GuestScenarios: system property " + MODE_PROPERTY
          + " must be kprobe or fentry, got '" + mode + "'");
    }
    return mode;
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(240);
  }
}
