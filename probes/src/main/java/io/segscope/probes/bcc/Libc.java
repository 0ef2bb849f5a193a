package io.segscope.probes.bcc;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** The few libc calls the binding needs: closing fds, errno text, redirecting fd 2. */
interface Libc extends Library {

  Libc INSTANCE = Native.load("c", Libc.class);

  int O_WRONLY = 1;
  int O_CLOEXEC = 0x80000;
  int F_DUPFD_CLOEXEC = 1030;
  int STDERR = 2;

  int close(int fd);

  int dup2(int oldFd, int newFd);

  /** {@code int fcntl(int fd, int cmd, ...)}: variadic, so JNA sets up the call as one. */
  int fcntl(int fd, int cmd, Object... args);

  /** {@code int open(const char *path, int flags, ...)}. */
  int open(String path, int flags, Object... mode);

  String strerror(int errnum);
}
