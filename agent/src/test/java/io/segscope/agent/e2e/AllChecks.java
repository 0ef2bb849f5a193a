package io.segscope.agent.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs every check and fails once with all that failed, like AssertJ's SoftAssertions but without its proxies:
 * under the guest's emulation, generating the proxy classes of SoftAssertions' assertThat took about 30 s.
 */
final class AllChecks {
  /** A check: plain AssertJ assertions that throw AssertionError. */
  @FunctionalInterface
  interface Check {
    void run() throws Exception;
  }

  private final List<AssertionError> failed = new ArrayList<>();

  /** Runs {@code c}; an AssertionError it throws is kept for {@link #assertAll}, anything else is thrown. */
  void check(Check c) throws Exception {
    try {
      c.run();
    } catch (AssertionError e) {
      failed.add(e);
    }
  }

  /** Throws one AssertionError naming every failed check (each also attached as suppressed), if any failed. */
  void assertAll() {
    if (failed.isEmpty()) {
      return;
    }
    AssertionError all = new AssertionError(failed.size() + " check(s) failed:\n" + failed.stream()
        .map(e -> "- " + e.getMessage()).collect(Collectors.joining("\n")));
    failed.forEach(all::addSuppressed);
    throw all;
  }
}
