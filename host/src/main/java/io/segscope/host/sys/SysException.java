package io.segscope.host.sys;

/**
 * A failed system call: which call, on what, and the errno. {@link #unsupported()} is the sentinel
 * for "this kernel cannot do that" (EINVAL, EOPNOTSUPP, ENOSYS, ENOTSUPP), so callers can fall back to
 * another way instead of failing.
 */
public class SysException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String call;
  private final int errno;
  private final String log;

  /**
   * @param call what was called on what, e.g. {@code "bpf BPF_PROG_LOAD tp_btf_consume_skb"}
   * @param errno the errno (0 when the failure has none)
   * @param detail extra words after the errno (e.g. the verifier's verdict), may be empty
   */
  public SysException(String call, int errno, String detail) {
    this(call, errno, detail, "");
  }

  /** As above, carrying a log the kernel wrote (the verifier's, for a refused program). */
  public SysException(String call, int errno, String detail, String log) {
    super(call + ": " + Errno.describe(errno) + (detail == null || detail.isEmpty() ? "" : "; " + detail));
    this.call = call;
    this.errno = errno;
    this.log = log == null ? "" : log;
  }

  /** The kernel's log for this failure (the whole verifier log of a refused program), "" if none. */
  public String log() {
    return log;
  }

  public String call() {
    return call;
  }

  public int errno() {
    return errno;
  }

  /** Whether the errno says the kernel lacks the feature. */
  public boolean unsupported() {
    return Errno.meansUnsupported(errno);
  }
}
