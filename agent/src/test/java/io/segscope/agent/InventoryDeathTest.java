package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.advice.Recommendation;
import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.http.Backend;
import io.segscope.agent.http.DoorServer;
import io.segscope.agent.http.HttpSettings;
import io.segscope.agent.inventory.DeviceInventory;
import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.workload.Workloads;
import io.segscope.exporters.MetricsRegistry;
import io.segscope.exporters.model.TelemetrySnapshot;
import io.segscope.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The real device inventory (this host's namespaces over netlink), its thread killed by an injected
 * Error through the test hook: /readyz turns 503 and names the death, segscope_inventory_running
 * turns 0 and segscope_inventory_last_refresh_timestamp_seconds stops advancing. Root: it reads every
 * namespace of the host (and changes none).
 */
@Tag("lab")
class InventoryDeathTest {

  @Test
  void aDeadInventoryThreadShowsInReadyzAndInTheMetrics() throws Exception {
    // the follower thread throws this at its next turn once it is set, as if the JVM had thrown it there
    AtomicReference<Error> failure = new AtomicReference<>();
    DeviceInventory inventory = DeviceInventory.start(InventoryConfig.defaults().withBeforeTurn(() -> {
      Error e = failure.getAndSet(null);
      if (e != null) {
        throw e;
      }
    }), new DecodeWarnings());
    try {
      TelemetrySnapshot empty = TelemetrySnapshot.builder().takenAt(Instant.now()).build();
      MetricsRegistry metrics = new MetricsRegistry(() -> empty);
      AgentRuntime.registerInventoryMeters(inventory, metrics);
      Backend backend = new Backend() {
        @Override
        public Inventory inventory() {
          return inventory.current();
        }

        @Override
        public Workloads workloads() {
          return Workloads.none();
        }

        @Override
        public Collection<DeviceCost> costs() {
          return List.of();
        }

        @Override
        public List<Recommendation> recommendations() {
          return List.of();
        }

        @Override
        public List<String> notReadyReasons() {
          // no probes here: only the inventory's part of the agent's readiness
          return Health.notReady(List.of(), List.of(), true, Health.status(inventory), Instant.now(),
              Health.INVENTORY_STALE_AFTER);
        }
      };
      try (DoorServer server = DoorServer.start(HttpSettings.plain("127.0.0.1", 0), backend,
          metrics)) {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + server.port();
        HttpResponse<String> ready = get(http, base + "/readyz");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        String m = get(http, base + "/metrics").body();
        assertThat(value(m, "segscope_inventory_running")).isEqualTo(1.0);
        double refreshed = value(m, "segscope_inventory_last_refresh_timestamp_seconds");
        assertThat(refreshed).as("last refresh is recent").isCloseTo(System.currentTimeMillis() / 1000.0,
            Offset.offset(10.0));

        failure.set(new OutOfMemoryError("injected by InventoryDeathTest"));
        await(() -> inventory.death().isPresent(), Duration.ofSeconds(10), "the inventory thread dies");

        HttpResponse<String> dead = get(http, base + "/readyz");
        assertThat(dead.statusCode()).isEqualTo(503);
        assertThat(dead.body())
            .contains("device inventory thread died: OutOfMemoryError: injected by InventoryDeathTest");
        String after = get(http, base + "/metrics").body();
        assertThat(value(after, "segscope_inventory_running")).isEqualTo(0.0);
        double last = value(after, "segscope_inventory_last_refresh_timestamp_seconds");
        await(() -> System.currentTimeMillis() / 1000.0 - last > 2.5, Duration.ofSeconds(10), "time passes");
        assertThat(value(get(http, base + "/metrics").body(), "segscope_inventory_last_refresh_timestamp_seconds"))
            .as("no refresh after the death").isEqualTo(last);
      }
    } finally {
      inventory.close();
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of an unlabelled series in Prometheus text. */
  private static double value(String text, String name) {
    return text.lines().filter(l -> l.startsWith(name + " ")).map(l -> Double.parseDouble(l.split(" ")[1]))
        .findFirst().orElseThrow(() -> new AssertionError(name + " not in the scrape"));
  }

  private static void await(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
    Await.atMost(timeout).every(Duration.ofMillis(50)).untilOrFail(condition::getAsBoolean,
        () -> what + ": not within " + timeout);
  }
}
