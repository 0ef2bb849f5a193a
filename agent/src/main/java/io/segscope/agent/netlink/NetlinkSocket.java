package io.segscope.agent.netlink;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bound netlink socket (AF_NETLINK, SOCK_RAW) opened through libc. It belongs to the network
 * namespace of the thread that called {@link #open}; it stays there for its whole life, whichever
 * thread uses it later.
 *
 * <p>Requests carry increasing sequence numbers; replies are matched on sequence number and port
 * id; replies for an older sequence (left over from an abandoned request) are dropped and counted.
 * Dumps are collected until NLMSG_DONE; NLMSG_ERROR becomes a {@link NetlinkException} with the
 * errno text and the kernel's extended-ack message. A dump the kernel marks NLM_F_DUMP_INTR
 * (the table changed while it was read) is repeated, up to {@value #DUMP_ATTEMPTS} times.
 * Methods are synchronized: one request at a time per socket.
 */
public final class NetlinkSocket implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NetlinkSocket.class.getName());
  static final int DUMP_ATTEMPTS = 4;
  private static final int SOCKADDR_NL_LENGTH = 12;
  private static final int RECEIVE_BUFFER = 64 * 1024;

  private final int protocol;
  private final int fd;
  private final int portId;
  /**
   * One receive buffer per thread, not per socket: the inventory holds four sockets in every
   * namespace, and a per-socket 64 KiB buffer (malloc'd, touched by the first large dump) was native
   * memory that grew with the namespaces; replies are copied out before the next receive.
   */
  private static final ThreadLocal<Memory> RECEIVE = ThreadLocal.withInitial(() -> new Memory(RECEIVE_BUFFER));
  private final Memory kernelAddress = new Memory(SOCKADDR_NL_LENGTH);
  private final DecodeWarnings warnings;
  private int seq = (int) (System.nanoTime() & 0x3fffffff);
  private boolean closed;

  private NetlinkSocket(int protocol, int fd, int portId, DecodeWarnings warnings) {
    this.protocol = protocol;
    this.fd = fd;
    this.portId = portId;
    this.warnings = warnings;
    kernelAddress.clear();
    kernelAddress.setShort(0, (short) Libc.AF_NETLINK);
  }

  /**
   * Opens and binds a netlink socket of {@code protocol} (e.g. {@link Netlink#NETLINK_ROUTE}) in the
   * calling thread's network namespace, with a receive timeout for requests.
   */
  public static NetlinkSocket open(int protocol, Duration receiveTimeout, DecodeWarnings warnings) {
    Libc c = Libc.INSTANCE;
    int fd = c.socket(Libc.AF_NETLINK, Libc.SOCK_RAW | Libc.SOCK_CLOEXEC, protocol);
    if (fd < 0) {
      throw NetlinkException.errno("open netlink socket (protocol " + protocol + ")", Native.getLastError());
    }
    try {
      Memory addr = new Memory(SOCKADDR_NL_LENGTH);
      addr.clear();
      addr.setShort(0, (short) Libc.AF_NETLINK);
      if (c.bind(fd, addr, SOCKADDR_NL_LENGTH) != 0) {
        throw NetlinkException.errno("bind netlink socket (protocol " + protocol + ")", Native.getLastError());
      }
      IntByReference len = new IntByReference(SOCKADDR_NL_LENGTH);
      if (c.getsockname(fd, addr, len) != 0) {
        throw NetlinkException.errno("read netlink port id", Native.getLastError());
      }
      int port = addr.getInt(4);
      setInt(fd, Netlink.SOL_NETLINK, Netlink.NETLINK_EXT_ACK, 1, true);
      setInt(fd, Netlink.SOL_NETLINK, Netlink.NETLINK_CAP_ACK, 1, true);
      setTimeout(fd, receiveTimeout);
      return new NetlinkSocket(protocol, fd, port, warnings);
    } catch (RuntimeException e) {
      c.close(fd);
      throw e;
    }
  }

  public int protocol() {
    return protocol;
  }

  /** The port id the kernel assigned at bind (nl_pid). */
  public int portId() {
    return portId;
  }

  /** The file descriptor, for poll(2) by an event reader. */
  public int fd() {
    return fd;
  }

  /**
   * Runs a dump request (NLM_F_REQUEST | NLM_F_DUMP must be in the builder's flags) and returns
   * every data message until NLMSG_DONE.
   */
  public synchronized List<NetlinkMessage> dump(MessageBuilder request, String what) {
    for (int attempt = 1;; attempt++) {
      List<NetlinkMessage> out = new ArrayList<>();
      boolean interrupted = exchange(request, what, out, true);
      if (!interrupted) {
        return out;
      }
      if (attempt == DUMP_ATTEMPTS) {
        // not malformed bytes (nothing was skipped): the table changed under every attempt, as in a burst
        // of link changes; the notifications and the periodic refresh that follow bring the rest
        LOG.log(System.Logger.Level.INFO, what + ": table kept changing during " + DUMP_ATTEMPTS
            + " dumps (NLM_F_DUMP_INTR); using the last one");
        return out;
      }
    }
  }

  /**
   * Sends a request with NLM_F_ACK added and returns the reply messages received before the ACK
   * (empty for a pure action). A kernel error becomes a {@link NetlinkException}.
   */
  public synchronized List<NetlinkMessage> request(MessageBuilder request, String what) {
    List<NetlinkMessage> out = new ArrayList<>();
    exchange(request, what, out, false);
    return out;
  }

  /** Joins a multicast group (e.g. RTNLGRP_LINK = 1) and enlarges the receive buffer for bursts. */
  public synchronized void subscribe(int group, int receiveBufferBytes) {
    setInt(fd, Netlink.SOL_NETLINK, Netlink.NETLINK_ADD_MEMBERSHIP, group, false);
    try {
      setInt(fd, Libc.SOL_SOCKET, Libc.SO_RCVBUFFORCE, receiveBufferBytes, false);
    } catch (NetlinkException e) {
      setInt(fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, receiveBufferBytes, true);
    }
  }

  /**
   * Reads every datagram already queued without blocking (notifications on a subscribed socket).
   * Throws a {@link NetlinkException} with errno ENOBUFS when the kernel dropped notifications.
   */
  public synchronized List<NetlinkMessage> drain() {
    List<NetlinkMessage> out = new ArrayList<>();
    while (true) {
      ByteBuffer datagram = receive(Libc.MSG_DONTWAIT, "read notifications", true);
      if (datagram == null) {
        return out;
      }
      out.addAll(NetlinkMessages.parse(datagram));
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      Libc.INSTANCE.close(fd);
    }
  }

  private boolean exchange(MessageBuilder request, String what, List<NetlinkMessage> out, boolean dump) {
    checkOpen(what);
    int mySeq = ++seq;
    byte[] bytes = request.build(mySeq, portId);
    if (!dump) {
      int flags = Short.toUnsignedInt(ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getShort(6));
      ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putShort(6, (short) (flags | Netlink.NLM_F_ACK));
    }
    send(bytes, what);
    boolean interrupted = false;
    while (true) {
      ByteBuffer datagram = receive(0, what, false);
      for (NetlinkMessage m : NetlinkMessages.parse(datagram)) {
        if (m.seq() != mySeq || (m.portId() != portId && m.portId() != 0)) {
          warnings.warn(what + ": dropped a reply with sequence " + m.seq() + " port " + m.portId()
              + " (expected " + mySeq + " port " + portId + ")");
          continue;
        }
        if (m.hasFlag(Netlink.NLM_F_DUMP_INTR)) {
          interrupted = true;
        }
        switch (m.type()) {
          case Netlink.NLMSG_NOOP:
            break;
          case Netlink.NLMSG_ERROR:
            NetlinkMessages.checkError(m, what);
            return interrupted;
          case Netlink.NLMSG_DONE:
            if (m.payloadLength() >= 4 && m.payload().getInt(0) < 0) {
              throw NetlinkException.errno(what, -m.payload().getInt(0));
            }
            return interrupted;
          case Netlink.NLMSG_OVERRUN:
            throw new NetlinkException(what + ": kernel reported NLMSG_OVERRUN");
          default:
            out.add(m); // data; a request's ACK (or a dump's DONE) follows
        }
      }
    }
  }

  private void send(byte[] bytes, String what) {
    try (Memory mem = new Memory(bytes.length)) { // freed now, not when the collector finds it
      mem.write(0, bytes, 0, bytes.length);
      while (true) {
        long n = Libc.INSTANCE.sendto(fd, mem, bytes.length, 0, kernelAddress, SOCKADDR_NL_LENGTH);
        if (n >= 0) {
          return;
        }
        int err = Native.getLastError();
        if (err != Errno.EINTR) {
          throw NetlinkException.errno(what + ": send request", err);
        }
      }
    }
  }

  /** One datagram, or null when nonBlocking and nothing is queued. */
  private ByteBuffer receive(int flags, String what, boolean nonBlocking) {
    checkOpen(what);
    Memory receiveBuffer = RECEIVE.get();
    while (true) {
      long n = Libc.INSTANCE.recv(fd, receiveBuffer, RECEIVE_BUFFER, flags | Libc.MSG_TRUNC);
      if (n < 0) {
        int err = Native.getLastError();
        if (err == Errno.EINTR) {
          continue;
        }
        if (err == Errno.EAGAIN) {
          if (nonBlocking) {
            return null;
          }
          throw new NetlinkException(what + ": no reply from the kernel before the receive timeout");
        }
        throw NetlinkException.errno(what + ": receive", err);
      }
      if (n > RECEIVE_BUFFER) {
        throw new NetlinkException(what + ": reply of " + n + " bytes exceeds the " + RECEIVE_BUFFER
            + "-byte receive buffer (truncated)");
      }
      byte[] copy = receiveBuffer.getByteArray(0, (int) n);
      return ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder());
    }
  }

  private void checkOpen(String what) {
    if (closed) {
      throw new NetlinkException(what + ": socket is closed");
    }
  }

  /**
   * The cookie of the network namespace this socket lives in (SO_NETNS_COOKIE, 5.14+): unique for the
   * life of the host, unlike the namespace's inode, which is reused. 0 when the kernel has none.
   */
  public long netnsCookie() {
    Memory v = new Memory(8);
    v.setLong(0, 0);
    IntByReference len = new IntByReference(8);
    if (Libc.INSTANCE.getsockopt(fd, Libc.SOL_SOCKET, Libc.SO_NETNS_COOKIE, v, len) != 0 || len.getValue() != 8) {
      return 0;
    }
    return v.getLong(0);
  }

  private static void setInt(int fd, int level, int option, int value, boolean optional) {
    Memory v = new Memory(4);
    v.setInt(0, value);
    if (Libc.INSTANCE.setsockopt(fd, level, option, v, 4) != 0) {
      int err = Native.getLastError();
      if (!optional) {
        throw NetlinkException.errno("set socket option " + level + "/" + option, err);
      }
    }
  }

  private static void setTimeout(int fd, Duration timeout) {
    Memory tv = new Memory(16);
    tv.setLong(0, timeout.toSeconds());
    tv.setLong(8, timeout.toMillisPart() * 1000L);
    if (Libc.INSTANCE.setsockopt(fd, Libc.SOL_SOCKET, Libc.SO_RCVTIMEO, tv, 16) != 0) {
      throw NetlinkException.errno("set netlink receive timeout", Native.getLastError());
    }
  }
}
