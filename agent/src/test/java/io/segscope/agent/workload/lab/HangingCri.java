package io.segscope.agent.workload.lab;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A "container runtime" that hangs: a unix socket that accepts every connection and never reads or
 * answers. What a wedged containerd looks like to a CRI client.
 */
public final class HangingCri implements AutoCloseable {
  private final Path path;
  private final ServerSocketChannel server;
  private final List<SocketChannel> held = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final Thread acceptor;

  private HangingCri(Path path, ServerSocketChannel server) {
    this.path = path;
    this.server = server;
    this.acceptor = new Thread(this::accept, "hanging-cri");
    this.acceptor.setDaemon(true);
    this.acceptor.start();
  }

  public static HangingCri open(Path path) throws IOException {
    Files.deleteIfExists(path);
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(path));
    return new HangingCri(path, s);
  }

  private void accept() {
    while (server.isOpen()) {
      try {
        held.add(server.accept());
        accepted.incrementAndGet();
      } catch (IOException e) {
        return;
      }
    }
  }

  public Path path() {
    return path;
  }

  /** Connections accepted (and never answered) so far. */
  public int accepted() {
    return accepted.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (SocketChannel c : held) {
      c.close();
    }
    acceptor.interrupt();
    Files.deleteIfExists(path);
  }
}
