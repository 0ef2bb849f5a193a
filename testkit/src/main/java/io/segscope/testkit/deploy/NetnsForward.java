package io.segscope.testkit.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP port on the host's loopback that leads to an address in another network namespace: each
 * accepted connection is relayed to a socket opened from a thread inside that namespace (a socket
 * stays in the namespace it was made in). For a test that reaches a hostNetwork pod of the
 * containerd lab, whose "node" is a lab namespace without a route to the host.
 *
 * <p>The socket inside the namespace is made by a {@link Connector} of the caller's (the agent's tests and
 * the bench enter a namespace with the agent's own NetnsThread), so this class needs no setns of its own.
 */
public final class NetnsForward implements AutoCloseable {
  /** Opens a connection to the target from inside its network namespace. */
  @FunctionalInterface
  public interface Connector {
    Socket connect() throws IOException;
  }

  private final ServerSocket server;
  private final AutoCloseable owned;
  private final ExecutorService pumps = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "netns-forward-pump");
    t.setDaemon(true);
    return t;
  });

  private NetnsForward(ServerSocket server, AutoCloseable owned) {
    this.server = server;
    this.owned = owned;
  }

  /**
   * Forwards 127.0.0.1:{@link #port()} to whatever {@code connector} connects to; {@code owned} (what the
   * connector enters the namespace with) is closed with the forward.
   */
  public static NetnsForward open(Connector connector, AutoCloseable owned) throws IOException {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    NetnsForward f = new NetnsForward(s, owned);
    f.pumps.execute(() -> f.acceptLoop(connector));
    return f;
  }

  public int port() {
    return server.getLocalPort();
  }

  private void acceptLoop(Connector connector) {
    while (!server.isClosed()) {
      Socket in;
      try {
        in = server.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket out = connector.connect();
        pumps.execute(() -> pump(in, out));
        pumps.execute(() -> pump(out, in));
      } catch (IOException | RuntimeException e) {
        closeQuietly(in); // the client sees the connection refused, as it would the port itself
      }
    }
  }

  private static void pump(Socket from, Socket to) {
    try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
      i.transferTo(o);
    } catch (IOException e) {
      // either side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    pumps.shutdownNow();
    try {
      owned.close();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("close the forward's namespace thread: " + e.getMessage(), e);
    }
  }
}
