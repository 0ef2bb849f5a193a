package io.segscope.probes.sys;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * segscope's one libc binding: the few entry points the kernel-facing code calls directly.
 * {@code syscall}, {@code ioctl} and {@code prctl} are variadic.
 */
public interface Libc extends Library {
  Libc INSTANCE = Native.load("c", Libc.class);

  /** {@code long syscall(long number, ...)}: pass every argument as a {@code Long} or a Pointer. */
  long syscall(long number, Object... args);

  /** {@code int ioctl(int fd, unsigned long request, ...)}. */
  int ioctl(int fd, long request, Object... args);

  int close(int fd);

  int dup(int fd);

  int dup2(int oldFd, int newFd);

  long write(int fd, byte[] buf, long count);

  int prctl(int option, Object... args);

  int getppid();

  String strerror(int errnum);
}
