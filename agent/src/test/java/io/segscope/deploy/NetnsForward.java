package io.segscope.deploy;

import io.segscope.agent.inventory.NetnsThread;
import io.segscope.agent.inventory.model.Netns;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP port on the host's loopback that leads to an address in another network namespace: each
 * accepted connection is relayed to a socket opened from a thread inside that namespace (a socket
 * stays in the namespace it was made in). For a test that reaches a hostNetwork pod of the
 * containerd lab, whose "node" is a lab namespace without a route to the host.
 */
final class NetnsForward implements AutoCloseable {
  private final ServerSocket server;
  private final NetnsThread thread = new NetnsThread("netns-forward");
  private final ExecutorService pumps = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "netns-forward-pump");
    t.setDaemon(true);
    return t;
  });

  private NetnsForward(ServerSocket server) {
    this.server = server;
  }

  /** Forwards 127.0.0.1:{@link #port()} to {@code target} inside {@code ns}. */
  static NetnsForward open(Netns ns, InetSocketAddress target) throws IOException {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    NetnsForward f = new NetnsForward(s);
    f.pumps.execute(() -> f.acceptLoop(ns, target));
    return f;
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop(Netns ns, InetSocketAddress target) {
    while (!server.isClosed()) {
      Socket in;
      try {
        in = server.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket out = thread.call(ns, () -> {
          Socket s = new Socket();
          s.connect(target, 5000);
          return s;
        });
        pumps.execute(() -> pump(in, out));
        pumps.execute(() -> pump(out, in));
      } catch (RuntimeException e) {
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
    thread.close();
  }
}
