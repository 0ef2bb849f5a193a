package io.segscope.agent.netlink;

import io.segscope.host.sys.Errno;

/**
 * A netlink operation or decode failed: a kernel error reply (with its errno and, when the kernel
 * sent one, its extended-ack message), a socket call that failed, or bytes that do not form a valid
 * message. The message always reads "verb object: cause".
 */
public class NetlinkException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int errno;

  public NetlinkException(String message) {
    this(message, 0, null);
  }

  public NetlinkException(String message, Throwable cause) {
    this(message, 0, cause);
  }

  private NetlinkException(String message, int errno, Throwable cause) {
    super(message, cause);
    this.errno = errno;
  }

  /**
   * An error carrying an errno (positive, e.g. 19 for ENODEV), from a failed system call or a kernel
   * NLMSG_ERROR reply. The errno text is appended to {@code what}.
   */
  public static NetlinkException errno(String what, int errno) {
    return new NetlinkException(what + ": " + Errno.describe(errno), errno, null);
  }

  /** Positive errno from the kernel or libc; 0 when the failure is not an errno (e.g. bad bytes). */
  public int errno() {
    return errno;
  }
}
