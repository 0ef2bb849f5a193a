package io.segscope.probes.bcc;

import io.segscope.host.sys.Errno;
import java.util.Objects;

/**
 * A libbcc call failed. The message reads {@code "<call> <object>: <cause>"}, where cause is the
 * errno text and number when the call set one, e.g.
 * {@code "bcc_func_load tracepoint__net__x: Permission denied (errno 13)"}, otherwise a reason such
 * as {@code "compile failed"}. A hint may follow after {@code "; "}, and what libbcc/clang printed
 * to stderr during the call follows on the next lines.
 *
 * <p>{@link #verifierLog()} carries the kernel verifier's log of a rejected program load, in full.
 */
public class BccException extends Exception {
  private static final int MAX_DIAGNOSTICS_IN_MESSAGE = 8192;

  private final String call;
  private final String object;
  private final int errno;
  private final String verifierLog;
  private final String diagnostics;

  /**
   * @param call        the failing libbcc function (or operation), e.g. {@code bpf_attach_kprobe}
   * @param object      what it was applied to, e.g. a function, symbol or table name
   * @param errno       the errno the call reported, 0 if none
   * @param reason      why, when there is no errno (or extra words after the errno text); may be empty
   * @param verifierLog the verifier log, "" if none
   * @param diagnostics what the call printed to stderr, "" if none or not captured
   */
  public BccException(String call, String object, int errno, String reason, String verifierLog,
      String diagnostics) {
    super(message(call, object, errno, reason, diagnostics));
    this.call = Objects.requireNonNull(call, "call");
    this.object = Objects.requireNonNull(object, "object");
    this.errno = errno;
    this.verifierLog = verifierLog == null ? "" : verifierLog;
    this.diagnostics = diagnostics == null ? "" : diagnostics.strip();
  }

  /** A failure described by its errno alone. */
  public BccException(String call, String object, int errno) {
    this(call, object, errno, "", "", "");
  }

  /** A failure without errno, described by a reason. */
  public BccException(String call, String object, String reason) {
    this(call, object, 0, reason, "", "");
  }

  /** The failing libbcc function or operation. */
  public String call() {
    return call;
  }

  /** The thing the call was applied to (function, symbol, tracepoint, table). */
  public String object() {
    return object;
  }

  /** The errno the call reported, 0 if none. */
  public int errno() {
    return errno;
  }

  /** The kernel verifier's log for a rejected load, "" if none. */
  public String verifierLog() {
    return verifierLog;
  }

  /** What libbcc or clang printed on stderr during the call, "" if nothing or not captured. */
  public String diagnostics() {
    return diagnostics;
  }

  static String message(String call, String object, int errno, String reason, String diagnostics) {
    StringBuilder text = new StringBuilder().append(call).append(' ').append(object).append(": ");
    String why = reason == null ? "" : reason.strip();
    if (errno != 0) {
      text.append(Errno.describe(errno));
      if (!why.isEmpty()) {
        text.append("; ").append(why);
      }
    } else {
      text.append(why.isEmpty() ? "failed" : why);
    }
    String printed = diagnostics == null ? "" : diagnostics.strip();
    if (!printed.isEmpty()) {
      if (printed.length() > MAX_DIAGNOSTICS_IN_MESSAGE) {
        printed = printed.substring(0, MAX_DIAGNOSTICS_IN_MESSAGE) + "\n[... truncated]";
      }
      text.append('\n').append(printed);
    }
    return text.toString();
  }
}
