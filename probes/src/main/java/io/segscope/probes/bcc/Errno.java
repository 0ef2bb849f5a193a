package io.segscope.probes.bcc;

import com.sun.jna.Native;

/** errno values the binding reacts to, and how a failed call's errno is read. */
final class Errno {
  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int EACCES = 13;
  static final int EINVAL = 22;
  static final int ENOSPC = 28;
  static final int ENOSYS = 38;
  static final int EOPNOTSUPP = 95;
  /** Kernel-internal ENOTSUPP, which some bpf commands leak to user space. */
  static final int ENOTSUPP = 524;

  private Errno() {}

  /**
   * errno of a call whose return value already said "failed". Call immediately after the native
   * call, before any other native call on this thread. libbpf-style functions that return
   * {@code -errno} without setting errno are covered by falling back to {@code -ret}.
   */
  static int ofFailure(long ret) {
    return ofFailure(ret, Native.getLastError());
  }

  static int ofFailure(long ret, int lastError) {
    if (lastError != 0) {
      return lastError;
    }
    return ret < -1 && ret >= -4095 ? (int) -ret : 0;
  }

  /** The C library's text for an errno, e.g. "Permission denied" for 13. */
  static String describe(int errno) {
    if (errno == ENOTSUPP) {
      return "Operation not supported (kernel ENOTSUPP)";
    }
    synchronized (Errno.class) {
      String text = Libc.INSTANCE.strerror(errno);
      return text == null || text.isBlank() ? "Unknown error " + errno : text;
    }
  }
}
