package io.segscope.agent.workload;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.segscope.agent.workload.cri.v1.ListPodSandboxRequest;
import io.segscope.agent.workload.cri.v1.PodSandbox;
import io.segscope.agent.workload.cri.v1.PodSandboxStatusRequest;
import io.segscope.agent.workload.cri.v1.PodSandboxStatusResponse;
import io.segscope.agent.workload.cri.v1.RuntimeServiceGrpc;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Filter;
import java.util.logging.Logger;

/**
 * A read-only client of one container runtime's CRI socket (containerd, CRI-O): {@code ListPodSandbox}
 * and {@code PodSandboxStatus}, nothing else. Every call has a deadline, so a runtime that accepts the
 * connection and never answers costs the caller at most that long (the client's first call
 * {@link #FIRST_CALL_ALLOWANCE} longer: it also sets up the connection).
 *
 * <p>gRPC over HTTP/2 on a unix-domain socket, through netty's NIO transport (the JDK's own unix
 * sockets): no native library. The channel connects lazily on the first call and reconnects by
 * itself after the runtime restarts.
 */
public final class CriClient implements AutoCloseable {
  /** Replies larger than this are refused (a node's full sandbox list is far smaller). */
  static final int MAX_REPLY_BYTES = 16 * 1024 * 1024;

  /**
   * grpc-netty sets SO_KEEPALIVE on every channel; a unix socket has no such option and netty warns
   * about it on each connect. Only that one warning is dropped (the logger is held so the filter stays).
   */
  private static final List<Logger> BOOTSTRAP_LOGS = List.of(
      quietKeepAliveWarning("io.netty.bootstrap.Bootstrap"),
      quietKeepAliveWarning("io.netty.bootstrap.AbstractBootstrap"));

  private static Logger quietKeepAliveWarning(String name) {
    Logger l = Logger.getLogger(name);
    Filter previous = l.getFilter();
    l.setFilter(r -> {
      String m = r.getMessage();
      boolean ours = m != null && m.contains("SO_KEEPALIVE") && m.contains("DomainSocketChannel");
      return !ours && (previous == null || previous.isLoggable(r));
    });
    return l;
  }

  private final Path socket;
  private final Duration deadline;
  private final EventLoopGroup loop;
  private final ManagedChannel channel;
  private final RuntimeServiceGrpc.RuntimeServiceBlockingStub stub;
  /** Whether a call was made yet: the first one also sets up the connection (and loads grpc's classes). */
  private volatile boolean called;

  /** Added to the first call's deadline: connection setup and class loading in a JVM that just started. */
  static final Duration FIRST_CALL_ALLOWANCE = Duration.ofSeconds(3);

  /** Sets up the channel; nothing is sent until the first call. */
  public CriClient(Path socket, Duration deadline) {
    this.socket = socket;
    this.deadline = deadline;
    this.loop = new MultiThreadIoEventLoopGroup(1, r -> {
      Thread t = new Thread(r, "segscope-cri-io");
      t.setDaemon(true);
      return t;
    }, NioIoHandler.newFactory());
    this.channel = NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socket))
        .channelType(NioDomainSocketChannel.class)
        .eventLoopGroup(loop)
        .usePlaintext()
        .overrideAuthority("localhost")
        .maxInboundMessageSize(MAX_REPLY_BYTES)
        .userAgent("segscope")
        .build();
    this.stub = RuntimeServiceGrpc.newBlockingStub(channel);
  }

  public Path socket() {
    return socket;
  }

  /** Every pod sandbox the runtime knows, ready or not. */
  public List<PodSandbox> listPodSandbox() throws CriException {
    try {
      return stub.withDeadlineAfter(deadlineMillis(), TimeUnit.MILLISECONDS)
          .listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList();
    } catch (StatusRuntimeException e) {
      throw new CriException("list pod sandboxes on " + socket + ": " + describe(e), e);
    }
  }

  /** One sandbox's status with the runtime's verbose info (its netns path and pid). */
  public PodSandboxStatusResponse podSandboxStatus(String id) throws CriException {
    try {
      return stub.withDeadlineAfter(deadlineMillis(), TimeUnit.MILLISECONDS)
          .podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(id).setVerbose(true).build());
    } catch (StatusRuntimeException e) {
      throw new CriException("read status of pod sandbox " + id + " on " + socket + ": " + describe(e), e);
    }
  }

  /** This call's deadline; the first call of this client gets {@link #FIRST_CALL_ALLOWANCE} more. */
  private long deadlineMillis() {
    long ms = called ? deadline.toMillis() : deadline.plus(FIRST_CALL_ALLOWANCE).toMillis();
    called = true;
    return ms;
  }

  private String describe(StatusRuntimeException e) {
    var s = e.getStatus();
    return switch (s.getCode()) {
      case DEADLINE_EXCEEDED -> "no answer within the deadline (" + deadline.toMillis() + " ms per call)";
      case UNAVAILABLE -> "runtime unavailable (" + (s.getCause() != null && s.getCause().getMessage() != null
          ? s.getCause().getMessage() : String.valueOf(s.getDescription())) + ")";
      default -> s.getCode() + (s.getDescription() == null ? "" : ": " + s.getDescription());
    };
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** A CRI call that failed: the message names the call, the socket and why. */
  public static final class CriException extends Exception {
    private static final long serialVersionUID = 1L;

    public CriException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
