package io.segscope.bench.scale;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny TCP traffic tool run inside lab namespaces ({@code ip netns exec NS java -cp bench.jar ...}) so that
 * many devices carry some GSO traffic:
 * <ul>
 *   <li>{@code serve PORT SECONDS}: accepts on 0.0.0.0:PORT and drains every connection, for SECONDS;
 *   <li>{@code send PORT BYTES FILE}: connects to each address listed in FILE (one per line), writes BYTES,
 *       closes its side and waits for the peer to close; prints "sent N of M".
 * </ul>
 * It exits non-zero with a message when anything fails.
 */
public final class TcpSpray {
  private TcpSpray() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("serve")) {
      serve(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
    } else if (args.length == 4 && args[0].equals("send")) {
      int ok = send(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Files.readAllLines(Path.of(args[3])));
      System.exit(ok);
    } else {
      System.err.println("usage: TcpSpray serve PORT SECONDS | send PORT BYTES ADDRESS_FILE");
      System.exit(2);
    }
  }

  private static void serve(int port, int seconds) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("0.0.0.0", port), 1024);
      s.setSoTimeout(200);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < end) {
        try {
          Socket c = s.accept();
          pool.execute(() -> drain(c));
        } catch (SocketTimeoutException e) {
          // check the deadline
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void drain(Socket c) {
    try (c; InputStream in = c.getInputStream()) {
      byte[] buf = new byte[65536];
      while (in.read(buf) >= 0) {
        // discard
      }
    } catch (IOException e) {
      // the sender went away: nothing to do
    }
  }

  /** Returns 0 when every address took all bytes, 1 otherwise. */
  private static int send(int port, int bytes, List<String> addresses) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicInteger ok = new AtomicInteger();
    StringBuilder failures = new StringBuilder();
    List<Future<?>> jobs = addresses.stream().filter(a -> !a.isBlank()).map(a -> pool.submit(() -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(a.trim(), port), 3000);
        s.setSoTimeout(5000);
        OutputStream out = s.getOutputStream();
        byte[] chunk = new byte[65536];
        for (int left = bytes; left > 0; left -= chunk.length) {
          out.write(chunk, 0, Math.min(left, chunk.length));
        }
        s.shutdownOutput();
        s.getInputStream().read();
        ok.incrementAndGet();
      } catch (IOException e) {
        synchronized (failures) {
          failures.append(a).append(": ").append(e.getMessage()).append("; ");
        }
      }
    })).<Future<?>>map(f -> f).toList();
    for (Future<?> f : jobs) {
      f.get();
    }
    pool.shutdown();
    System.out.println("sent " + ok.get() + " of " + jobs.size());
    if (ok.get() != jobs.size()) {
      System.err.println("send to " + (jobs.size() - ok.get()) + " addresses failed: " + failures);
      return 1;
    }
    return 0;
  }
}
