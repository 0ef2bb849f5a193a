package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Await;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * 200 parallel scrapers on one client address (127.0.0.2) against the agent's HTTP server for 60 s,
 * at 1,000 devices (a synthetic host: the scrape path is the agent's own, the devices' counters are
 * synthetic map entries, since the kernel is not what is tested here), while a Prometheus-like scraper
 * on 127.0.0.1 scrapes every 500 ms as Prometheus does (OpenMetrics, gzip, 10 s timeout). Beyond
 * {@code --web.max-requests} (40, at most 20 per client address) the flood gets 503 at once; the
 * sequential scraper succeeds every time; no slot is left taken afterwards. Bounded: 60 s and at most
 * 5,000,000 requests. Traffic only to loopback.
 */
class ScrapeFloodTest {
  static final int DEVICES = 1000;
  static final int SCRAPERS = 200;
  static final Duration FLOOD = Duration.ofSeconds(60);
  static final long MAX_REQUESTS = 5_000_000;
  static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
      + "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

  static String request() {
    return "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: flood\r\nAccept: " + PROMETHEUS_ACCEPT
        + "\r\nAccept-Encoding: gzip\r\n\r\n";
  }

  @Test
  void excessGets503FastWhileASequentialScrapeAlwaysSucceeds() throws Exception {
    try (DoorServer server = DoorServer.start(DoorServer.loopback(), DEVICES, List::of)) {
      int port = server.port();
      // one scrape first: the server has read and rendered before the flood starts
      try (RawHttp first = new RawHttp("127.0.0.1", port, 30_000)) {
        first.send(request());
        assertThat(first.read().status()).isEqualTo(200);
      }
      long deadline = System.nanoTime() + FLOOD.toNanos();
      AtomicLong sent = new AtomicLong();
      AtomicInteger ok = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      AtomicInteger other = new AtomicInteger();
      AtomicInteger reconnects = new AtomicInteger();
      ConcurrentLinkedQueue<Latencies> refusedLatencies = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Latencies> okLatencies = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<String> otherStatuses = new ConcurrentLinkedQueue<>();
      List<Thread> flood = new ArrayList<>();
      byte[] req = request().getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < SCRAPERS; i++) {
        Thread t = new Thread(() -> {
          Latencies refusedHere = new Latencies();
          Latencies okHere = new Latencies();
          RawHttp conn = null;
          try {
            while (System.nanoTime() < deadline && sent.incrementAndGet() <= MAX_REQUESTS) {
              try {
                if (conn == null) {
                  conn = new RawHttp("127.0.0.2", port, 30_000);
                }
                long t0 = System.nanoTime();
                conn.send(req);
                RawHttp.Response r = conn.read();
                long took = System.nanoTime() - t0;
                if (r.status() == 200) {
                  ok.incrementAndGet();
                  okHere.add(took);
                } else if (r.status() == 503) {
                  refused.incrementAndGet();
                  refusedHere.add(took);
                } else if (r.status() == -1) {
                  reconnects.incrementAndGet(); // the server closed a keep-alive connection: open another
                  conn.close();
                  conn = null;
                } else {
                  other.incrementAndGet();
                  otherStatuses.add(String.valueOf(r.status()));
                }
              } catch (IOException e) {
                reconnects.incrementAndGet();
                closeQuietly(conn);
                conn = null;
              }
            }
          } finally {
            closeQuietly(conn);
            refusedLatencies.add(refusedHere);
            okLatencies.add(okHere);
          }
        }, "flood-" + i);
        t.setDaemon(true);
        flood.add(t);
      }
      flood.forEach(Thread::start);

      // the Prometheus-like scraper: one scrape at a time, every 500 ms, each must succeed
      Latencies sequential = new Latencies();
      List<String> failures = new ArrayList<>();
      int scrapes = 0;
      while (System.nanoTime() < deadline - TimeUnit.SECONDS.toNanos(1) && scrapes < 1000) {
        long t0 = System.nanoTime();
        try (RawHttp prom = new RawHttp("127.0.0.1", port, 10_000)) {
          prom.send(request());
          RawHttp.Response r = prom.read();
          sequential.add(System.nanoTime() - t0);
          if (r.status() != 200) {
            failures.add("scrape " + scrapes + ": " + r.status() + " " + r.text());
          } else {
            String body = new String(new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes(),
                StandardCharsets.UTF_8);
            long devices = body.lines().filter(l -> l.startsWith("segscope_device_info{")).count();
            if (devices < DEVICES || !body.endsWith("# EOF\n")) {
              failures.add("scrape " + scrapes + ": " + devices + " device series, ends " + body.substring(
                  Math.max(0, body.length() - 20)));
            }
          }
        } catch (IOException e) {
          failures.add("scrape " + scrapes + ": " + e);
        }
        scrapes++;
        long rest = TimeUnit.MILLISECONDS.toNanos(500) - (System.nanoTime() - t0);
        if (rest > 0) {
          TimeUnit.NANOSECONDS.sleep(rest); // the scrape interval, as Prometheus keeps it
        }
      }
      for (Thread t : flood) {
        t.join(TimeUnit.SECONDS.toMillis(40));
      }
      Latencies refusedAll = new Latencies();
      refusedLatencies.forEach(refusedAll::addAll);
      Latencies okAll = new Latencies();
      okLatencies.forEach(okAll::addAll);
      System.out.printf("flood: %d requests, 200: %s, 503: %s, other %d %s, reconnects %d; sequential: %s, "
          + "failures %d%n", sent.get(), okAll, refusedAll, other.get(), otherStatuses.stream().distinct().toList(),
          reconnects.get(), sequential, failures.size());

      assertThat(flood).as("flood threads finished").noneMatch(Thread::isAlive);
      assertThat(failures).as("the sequential scraper's failures").isEmpty();
      assertThat(scrapes).as("sequential scrapes in 60 s").isGreaterThanOrEqualTo(60);
      assertThat(refused.get()).as("the flood went beyond the limit and was refused").isPositive();
      assertThat(ok.get()).as("the flood's own scrapes within the limit were served").isPositive();
      assertThat(other.get()).as("statuses other than 200/503: %s", otherStatuses).isZero();
      assertThat(refusedAll.millis(0.5)).as("503s are fast (median, ms): %s", refusedAll).isLessThan(100);
      assertThat(refusedAll.millis(0.5)).as("503s are faster than served scrapes").isLessThan(okAll.millis(0.5));
      Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50)).until(() -> server.requestsInFlight() == 0);
      assertThat(server.requestsInFlight()).as("slots held after the flood").isZero();
    }
  }

  private static void closeQuietly(RawHttp c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        // closing
      }
    }
  }
}
