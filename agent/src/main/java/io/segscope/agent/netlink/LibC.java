package io.segscope.agent.netlink;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * The libc calls the netlink and namespace code needs (Linux x86-64 / arm64: {@code long} is the
 * width of {@code size_t}). Return values follow libc: -1 and {@link Native#getLastError()} on
 * failure. Callers check the return value before reading errno.
 */
public interface LibC extends Library {
  LibC INSTANCE = Native.load("c", LibC.class);

  int AF_INET = 2;
  int AF_NETLINK = 16;
  int SOCK_DGRAM = 2;
  int SOCK_RAW = 3;
  int SOCK_CLOEXEC = 0x80000;
  int O_RDONLY = 0;
  int O_CLOEXEC = 0x80000;
  int SOL_SOCKET = 1;
  int SO_RCVBUF = 8;
  int SO_RCVTIMEO = 20;
  int SO_NETNS_COOKIE = 71;
  int MSG_DONTWAIT = 0x40;
  int MSG_TRUNC = 0x20;
  int POLLIN = 0x1;
  int CLONE_NEWNET = 0x40000000;

  int socket(int domain, int type, int protocol);

  int bind(int fd, Pointer addr, int addrlen);

  int getsockname(int fd, Pointer addr, IntByReference addrlen);

  long sendto(int fd, Pointer buf, long len, int flags, Pointer addr, int addrlen);

  long recv(int fd, Pointer buf, long len, int flags);

  int setsockopt(int fd, int level, int optname, Pointer optval, int optlen);

  int getsockopt(int fd, int level, int optname, Pointer optval, IntByReference optlen);

  int poll(Pointer fds, long nfds, int timeoutMillis);

  int ioctl(int fd, long request, Pointer arg);

  int open(String path, int flags);

  int close(int fd);

  int setns(int fd, int nstype);

  String strerror(int errnum);
}
