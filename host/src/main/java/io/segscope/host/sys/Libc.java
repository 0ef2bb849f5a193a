package io.segscope.host.sys;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * segscope's one libc binding: the few entry points the kernel-facing code calls directly (the probes'
 * bpf(2) and perf calls, the agent's netlink sockets, ethtool ioctl and setns). {@code syscall},
 * {@code ioctl}, {@code open}, {@code fcntl} and {@code prctl} are variadic. Linux x86-64 / arm64:
 * {@code long} is the width of {@code size_t}. Return values follow libc: -1 and errno
 * ({@link Errno#ofFailure}, {@link Native#getLastError()}) on failure; callers check the return value
 * before reading errno.
 */
public interface Libc extends Library {
  Libc INSTANCE = Native.load("c", Libc.class);

  int O_RDONLY = 0;
  int O_WRONLY = 1;
  int O_CLOEXEC = 0x80000;
  /** {@code O_TMPFILE} (with its {@code O_DIRECTORY} bit): an unnamed file in the directory opened. */
  int O_TMPFILE = 0x410000;
  int F_DUPFD_CLOEXEC = 1030;
  int STDERR = 2;

  int AF_INET = 2;
  int AF_NETLINK = 16;
  int SOCK_DGRAM = 2;
  int SOCK_RAW = 3;
  int SOCK_CLOEXEC = 0x80000;
  int SOL_SOCKET = 1;
  int SO_RCVBUF = 8;
  int SO_RCVTIMEO = 20;
  int SO_RCVBUFFORCE = 33;
  int SO_NETNS_COOKIE = 71;
  int MSG_DONTWAIT = 0x40;
  int MSG_TRUNC = 0x20;
  int POLLIN = 0x1;
  int CLONE_NEWNET = 0x40000000;

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

  int socket(int domain, int type, int protocol);

  int bind(int fd, Pointer addr, int addrlen);

  int getsockname(int fd, Pointer addr, IntByReference addrlen);

  long sendto(int fd, Pointer buf, long len, int flags, Pointer addr, int addrlen);

  long recv(int fd, Pointer buf, long len, int flags);

  int setsockopt(int fd, int level, int optname, Pointer optval, int optlen);

  int getsockopt(int fd, int level, int optname, Pointer optval, IntByReference optlen);

  int poll(Pointer fds, long nfds, int timeoutMillis);

  int setns(int fd, int nstype);

  String strerror(int errnum);

  /** glibc's {@code int malloc_trim(size_t pad)}: returns free C heap to the kernel; 1 when it did. */
  int malloc_trim(long pad);
}
