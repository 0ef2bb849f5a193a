package io.segscope.host.sys;

import com.sun.jna.Native;

/**
 * errno values segscope reacts to, and the one way an errno is put into words in messages:
 * {@code "Permission denied (errno 1)"}.
 */
public final class Errno {
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int ESRCH = 3;
  public static final int EINTR = 4;
  public static final int E2BIG = 7;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EACCES = 13;
  public static final int EFAULT = 14;
  public static final int EBUSY = 16;
  public static final int EEXIST = 17;
  public static final int ENODEV = 19;
  public static final int EINVAL = 22;
  public static final int ENOSPC = 28;
  public static final int ENOSYS = 38;
  public static final int EOPNOTSUPP = 95;
  /** A socket's receive queue overflowed (netlink notifications were dropped). */
  public static final int ENOBUFS = 105;
  /** Kernel-internal ENOTSUPP (524), which some bpf commands leak to user space. */
  public static final int ENOTSUPP = 524;

  private Errno() {}

  /**
   * errno of a call whose return value already said "failed"; call right after the native call.
   * Functions that return {@code -errno} without setting errno are covered by falling back to
   * {@code -ret}.
   */
  public static int ofFailure(long ret) {
    return ofFailure(ret, Native.getLastError());
  }

  static int ofFailure(long ret, int lastError) {
    if (lastError != 0) {
      return lastError;
    }
    return ret < -1 && ret >= -4095 ? (int) -ret : 0;
  }

  /** {@code "Permission denied (errno 1)"}. */
  public static String describe(int errno) {
    return text(errno) + " (errno " + errno + ")";
  }

  /** The C library's text for an errno, e.g. "Permission denied" for 13. */
  public static String text(int errno) {
    if (errno == ENOTSUPP) {
      return "Operation not supported (kernel ENOTSUPP)";
    }
    if (errno == 0) {
      return "failed without an errno";
    }
    synchronized (Errno.class) {
      String text = Libc.INSTANCE.strerror(errno);
      return text == null || text.isBlank() ? "Unknown error " + errno : text;
    }
  }

  /** Whether the errno says "this kernel does not support that" (EINVAL, EOPNOTSUPP, ENOSYS, ENOTSUPP). */
  public static boolean meansUnsupported(int errno) {
    return errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS || errno == ENOTSUPP;
  }
}
