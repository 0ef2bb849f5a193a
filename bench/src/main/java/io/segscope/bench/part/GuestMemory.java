package io.segscope.bench.part;

import io.segscope.bench.agent.AgentProcess;
import io.segscope.bench.agent.Launcher;
import io.segscope.bench.agent.ProcessUsage;
import io.segscope.bench.common.Results;
import io.segscope.bench.kernel.BpfFdinfo;
import io.segscope.bench.kernel.MemInfo;
import io.segscope.bench.scale.DeviceFleet;
import io.segscope.bench.scale.Spray;
import io.segscope.host.sys.Cpus;
import io.segscope.lab.Lab;
import io.segscope.testkit.PromText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Logger;

/**
 * Part 4, the half that runs inside the guest ({@code segscope-bench guest-memory}): a fleet of
 * {@code devices} veth devices with TCP over each (so the agent's maps hold an entry per device),
 * /proc/meminfo before the agent, with it, and after it exited, and the kernel's memlock of its maps.
 */
public final class GuestMemory {
  private static final Logger LOG = Logger.getLogger(GuestMemory.class.getName());
  static final int SPRAY_BYTES = 64 * 1024;

  private GuestMemory() {}

  public static GuestResult run(Launcher launcher, Path agentJar, Path benchJar, Path out, int devices, String smp)
      throws Exception {
    Results results = new Results(out);
    try (Lab lab = Lab.create("bench-guest")) {
      DeviceFleet fleet = new DeviceFleet(lab, ScalePart.GROUPS);
      fleet.growTo(devices / 2);
      Spray spray = new Spray(lab, benchJar, out);
      spray.over(fleet, SPRAY_BYTES); // whatever a first connection allocates, before the baseline
      LOG.info("guest: fleet of " + fleet.devices() + " devices built and sprayed");
      MemInfo before = MemInfo.read();
      MemInfo with;
      List<BpfFdinfo.BpfMap> maps;
      long rss;
      int counted;
      String mode;
      double firstScrape;
      try (AgentProcess agent = AgentProcess.start(launcher, agentJar, out.resolve("agent-guest.log"), List.of())) {
        agent.awaitReady(Duration.ofSeconds(900));
        firstScrape = agent.firstScrapeSeconds();
        LOG.info(String.format("guest: agent ready after %.0f s", agent.readySeconds()));
        spray.over(fleet, SPRAY_BYTES);
        PromText m = agent.scrapeAfter(Instant.now(), Duration.ofSeconds(120));
        counted = ScalePart.countedFleetDevices(m, fleet);
        mode = m.samples("segscope_probe_attached").stream().filter(s -> s.value() == 1)
            .map(s -> s.labels().getOrDefault("mode", "")).findFirst().orElse("");
        maps = BpfFdinfo.of(agent.pid()).maps();
        with = MemInfo.read();
        rss = ProcessUsage.of(agent.pid()).rssBytes();
        agent.stop();
      }
      MemInfo after = settled(before);
      GuestResult r = new GuestResult(smp, System.getProperty("os.version"), Cpus.possible(), online(),
          fleet.devices(), counted, mode, firstScrape, maps, before, with, after, rss, "");
      results.write("guest", r);
      return r;
    }
  }

  /**
   * /proc/meminfo once the kernel has freed the maps (freeing is deferred past an RCU grace period):
   * polled until Percpu + Slab stop falling, at most 60 s.
   */
  private static MemInfo settled(MemInfo baseline) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    MemInfo last = MemInfo.read();
    while (System.nanoTime() < deadline) {
      Thread.sleep(1000);
      MemInfo now = MemInfo.read();
      if (now.mapRelevant() >= last.mapRelevant() || now.mapRelevant() <= baseline.mapRelevant()) {
        return now;
      }
      last = now;
    }
    return last;
  }

  private static int online() {
    try {
      return Cpus.countList(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
    } catch (IOException e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }
}
