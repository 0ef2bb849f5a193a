package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * 2,000 slowloris connections from 127.0.0.3: half send a request line and then one header byte
 * every 500 ms (never finishing the headers), half send nothing. The read-header timeout (2 s here)
 * closes every one of them, none much before it, while a scraper on 127.0.0.1 keeps getting
 * /metrics every 200 ms. Bounded: 2,000 connections, the timeout plus 20 s. Traffic only to loopback.
 */
class SlowlorisTest {
  static final int CONNECTIONS = 2000;
  static final Duration HEADER_TIMEOUT = Duration.ofSeconds(2);

  private static int scrapeCount(Latencies l) {
    synchronized (l) {
      return l.count();
    }
  }

  @Test
  void slowConnectionsAreClosedByTheTimeoutsWhileMetricsKeepsAnswering() throws Exception {
    HttpSettings settings = DoorServer.loopback().withTimeouts(HEADER_TIMEOUT, Duration.ofSeconds(60));
    try (DoorServer server = DoorServer.start(settings, 100, List::of);
        Selector selector = Selector.open()) {
      int port = server.port();
      List<SocketChannel> dribblers = new ArrayList<>();
      long[] openedAt = new long[CONNECTIONS];
      long[] closedAt = new long[CONNECTIONS];
      List<SocketChannel> all = new ArrayList<>();
      try {
        for (int i = 0; i < CONNECTIONS; i++) {
          SocketChannel ch = SocketChannel.open();
          ch.bind(new InetSocketAddress("127.0.0.3", 0));
          ch.connect(new InetSocketAddress("127.0.0.1", port));
          ch.configureBlocking(false);
          openedAt[i] = System.nanoTime();
          ch.register(selector, SelectionKey.OP_READ, i);
          all.add(ch);
          if (i % 2 == 0) {
            ch.write(ByteBuffer.wrap("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(
                StandardCharsets.US_ASCII)));
            dribblers.add(ch);
          }
        }
        long opened = System.nanoTime();
        long deadline = System.nanoTime() + HEADER_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(20);
        int closed = 0;
        long nextDribble = System.nanoTime();
        Latencies scrapes = new Latencies();
        List<String> scrapeFailures = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean done = new AtomicBoolean();
        Thread scraper = new Thread(() -> {
          while (!done.get() && System.nanoTime() < deadline) {
            long t0 = System.nanoTime();
            try (RawHttp c = new RawHttp("127.0.0.1", port, 10_000)) {
              c.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
              RawHttp.Response r = c.read();
              synchronized (scrapes) {
                scrapes.add(System.nanoTime() - t0);
              }
              if (r.status() != 200 || !r.text().contains("segscope_device_info{")) {
                scrapeFailures.add(r.status() + " " + r.raw());
              }
            } catch (IOException e) {
              scrapeFailures.add(e.toString());
            }
            try {
              Thread.sleep(200); // the scrape interval
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "scraper");
        scraper.start();
        ByteBuffer sink = ByteBuffer.allocate(4096);
        while ((closed < CONNECTIONS || scrapeCount(scrapes) < 10) && System.nanoTime() < deadline) {
          selector.select(50);
          for (SelectionKey k : selector.selectedKeys()) {
            int i = (Integer) k.attachment();
            SocketChannel ch = (SocketChannel) k.channel();
            int n;
            try {
              sink.clear();
              n = ch.read(sink);
            } catch (IOException e) {
              n = -1; // reset
            }
            if (n < 0) {
              closedAt[i] = System.nanoTime();
              closed++;
              k.cancel();
              ch.close();
            }
          }
          selector.selectedKeys().clear();
          long now = System.nanoTime();
          if (now >= nextDribble) {
            for (SocketChannel ch : dribblers) {
              if (ch.isOpen()) {
                try {
                  ch.write(ByteBuffer.wrap(new byte[] {'x'}));
                } catch (IOException e) {
                  // closed by the server: the selector sees it
                }
              }
            }
            nextDribble = now + TimeUnit.MILLISECONDS.toNanos(500);
          }
        }
        done.set(true);
        scraper.join(15_000);
        long earliest = Long.MAX_VALUE;
        long latest = 0;
        for (int i = 0; i < CONNECTIONS; i++) {
          if (closedAt[i] != 0) {
            earliest = Math.min(earliest, closedAt[i] - openedAt[i]);
            latest = Math.max(latest, closedAt[i] - openedAt[i]);
          }
        }
        System.out.printf("slowloris: opened %d in %.2f s; %d closed, after %.2f..%.2f s; scrapes meanwhile: %s, "
            + "failures %d%n", CONNECTIONS, (opened - openedAt[0]) / 1e9, closed, earliest / 1e9, latest / 1e9, scrapes,
            scrapeFailures.size());
        assertThat(latest).as("all closed soon after the header timeout")
            .isLessThan(HEADER_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(8));
        assertThat(closed).as("slow connections closed by the server").isEqualTo(CONNECTIONS);
        assertThat(earliest).as("none closed well before the header timeout")
            .isGreaterThan(HEADER_TIMEOUT.toNanos() * 3 / 4);
        assertThat(scrapeFailures).as("/metrics while 2,000 slow connections are open").isEmpty();
        assertThat(scrapes.count()).as("scrapes meanwhile").isGreaterThanOrEqualTo(10);
        Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50)).until(() -> server.connectionsOpen() == 0);
        assertThat(server.connectionsOpen()).as("connections the server still tracks").isZero();
      } finally {
        for (SocketChannel ch : all) {
          ch.close();
        }
      }
    }
  }

  @Test
  void aKeptAliveConnectionDribblingItsNextRequestIsClosedToo() throws Exception {
    Duration header = Duration.ofSeconds(1);
    Duration idle = Duration.ofSeconds(2);
    try (DoorServer server = DoorServer.start(DoorServer.loopback().withTimeouts(header, idle), 10, List::of);
        RawHttp c = new RawHttp("127.0.0.3", server.port(), 15_000)) {
      c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assertThat(c.read().status()).isEqualTo(200);
      long answered = System.nanoTime();
      c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      boolean closed = false;
      long deadline = answered + TimeUnit.SECONDS.toNanos(15);
      while (!closed && System.nanoTime() < deadline) {
        try {
          c.send("x"); // one byte every 300 ms
          Thread.sleep(300);
        } catch (IOException e) {
          closed = true;
        }
        if (!closed) {
          closed = server.connectionsOpen() == 0;
        }
      }
      long after = System.nanoTime() - answered;
      assertThat(closed).as("closed within 15 s").isTrue();
      // bytes of an unfinished request do not count as activity for the idle timeout (Vert.x counts
      // decoded messages), and the header timer re-armed at the end of the response bounds it anyway
      assertThat(after).as("closed by the timeouts: not before 3/4 of the idle timeout, by idle + header + 6 s")
          .isBetween(idle.toNanos() * 3 / 4, idle.plus(header).toNanos() + TimeUnit.SECONDS.toNanos(6));
    }
  }
}
