package io.segscope.probes.sys;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * segscope's one libc binding: the few entry points the kernel-facing code calls directly.
 * {@code syscall}, {@code ioctl} and {@code prctl} are variadic.
 */
public interface Libc extends Library {
  Libc INSTANCE = Native.load("c", Libc.class);

  int O_WRONLY = 1;
  int O_CLOEXEC = 0x80000;
  int F_DUPFD_CLOEXEC = 1030;
  int STDERR = 2;

  /** {@code long syscall(long number, ...)}: pass every argument as a {@code Long} or a Pointer. */
  long syscall(long number, Object... args);

  /** {@code int ioctl(int fd, unsigned long request, ...)}. */
  int ioctl(int fd, long request, Object... args);

  int close(int fd);

  /** {@code int open(const char *path, int flags, ...)}. */
  int open(String path, int flags, Object... mode);

  /** {@code int fcntl(int fd, int cmd, ...)}. */
  int fcntl(int fd, int cmd, Object... args);

  int dup(int fd);

  int dup2(int oldFd, int newFd);

  long write(int fd, byte[] buf, long count);

  int prctl(int option, Object... args);

  int getppid();

  String strerror(int errnum);
}
