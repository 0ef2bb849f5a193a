package io.segscope.testkit;

import java.util.Locale;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The one policy for tests that need something of the machine (root, a tool, a kernel feature):
 *
 * <ul>
 *   <li>a missing <b>prerequisite</b> ({@link #require}, {@link #unmet}) skips the test with the reason,
 *       except when the environment says {@code CI=true} (as {@code scripts/test} does), where it fails
 *       it: on CI a skipped test would hide that nothing was tested;
 *   <li>a test that does not <b>apply</b> to this kernel ({@link #appliesOnlyWhere}: e.g. the fallback
 *       on kernels without kprobes, run on a kernel with them) is skipped everywhere, saying which
 *       kernels it is for; that is not a missing prerequisite, and Surefire counts it as skipped.
 * </ul>
 */
public final class Requirement {
  /** The environment variable that makes a missing prerequisite a failure. */
  public static final String CI = "CI";

  private Requirement() {}

  /** Whether this run is CI's ({@code CI=true}, case-insensitive). */
  public static boolean onCi() {
    return onCi(System.getenv(CI));
  }

  static boolean onCi(String value) {
    return value != null && value.strip().toLowerCase(Locale.ROOT).equals("true");
  }

  /** Skips (under CI=true: fails) the calling test unless {@code met}; {@code what} names what is missing. */
  public static void require(boolean met, String what) {
    if (!met) {
      unmet(what);
    }
  }

  /** Skips (under CI=true: fails) the calling test: {@code reason} names the missing prerequisite. */
  public static void unmet(String reason) {
    unmet(reason, onCi());
  }

  static void unmet(String reason, boolean ci) {
    if (ci) {
      Assertions.fail("prerequisite missing (CI=true makes this a failure): " + reason);
    }
    Assumptions.abort("prerequisite missing: " + reason);
  }

  /**
   * Skips the calling test unless {@code applies}: the test is about kernels (or hosts) where
   * {@code condition} holds, and this one is not such a machine. Never fails, on CI either.
   */
  public static void appliesOnlyWhere(boolean applies, String condition) {
    if (!applies) {
      Assumptions.abort("not applicable here: this test is for " + condition);
    }
  }
}
