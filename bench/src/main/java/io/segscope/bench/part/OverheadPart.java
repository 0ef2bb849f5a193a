package io.segscope.bench.part;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.bench.Results;
import io.segscope.bench.Stats;
import io.segscope.bench.agent.AgentProcess;
import io.segscope.lab.IperfResult;
import io.segscope.lab.Lab;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.logging.Logger;

/**
 * Part 2. S0 (the healthy S1 topology) and S1 side by side in one lab; pairs of (agent attached, agent not
 * running) with the order inside a pair alternating (with/without, then without/with, ...), so drift on the
 * shared machine does not favour one side. Each half of a pair runs S0 then S1.
 */
public final class OverheadPart {
  private static final Logger LOG = Logger.getLogger(OverheadPart.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(2);

  private final BenchConfig config;
  private final Results results;

  public OverheadPart(BenchConfig config, Results results) {
    this.config = config;
    this.results = results;
  }

  public OverheadResult run() throws Exception {
    List<OverheadResult.Run> runs = new ArrayList<>();
    List<Double> starts = new ArrayList<>();
    try (Lab lab = Lab.create("bench-overhead")) {
      List<Topology> scenarios = List.of(Scenarios.s1GsoMismatch(lab, true), Scenarios.s1GsoMismatch(lab, false));
      // one untimed warm-up of each path
      for (Topology t : scenarios) {
        lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), Duration.ofSeconds(1));
      }
      for (int pair = 0; pair < config.overheadPairs(); pair++) {
        boolean withFirst = pair % 2 == 0;
        for (boolean with : new boolean[] {withFirst, !withFirst}) {
          AgentProcess agent = null;
          if (with) {
            agent = AgentProcess.start(config.agentJar(), results.dir().resolve("agent-overhead-" + pair + ".log"));
            agent.awaitReady(Duration.ofSeconds(120));
            starts.add(agent.readySeconds());
            Thread.sleep(SETTLE.toMillis()); // let the just-started JVM finish its start-up work
          }
          try {
            for (Topology t : scenarios) {
              IperfResult r = lab.iperf(t.sender(), t.receiver(), t.receiverAddr(), config.overheadRun());
              double[] cpu = cpu(r);
              runs.add(new OverheadResult.Run(pair, label(t), with, r.gbitsPerSecond(), cpu[0], cpu[1]));
              LOG.info(String.format("pair %d %s %s: %.2f Gbit/s, sender %.0f%%, receiver %.0f%%", pair, label(t),
                  with ? "with agent" : "without", r.gbitsPerSecond(), cpu[0], cpu[1]));
            }
          } finally {
            if (agent != null) {
              agent.stop();
            }
          }
        }
      }
      OverheadResult result = new OverheadResult(runs, List.of(summary(runs, "S0"), summary(runs, "S1")),
          config.overheadRun().toMillis() / 1000.0, starts);
      results.write("overhead", result);
      List<List<Object>> csv = new ArrayList<>();
      csv.add(List.of("pair", "scenario", "agent", "gbps", "sender_cpu_pct", "receiver_cpu_pct"));
      runs.forEach(r -> csv.add(List.of(r.pair(), r.scenario(), r.agent(), r.gbps(), r.senderCpu(), r.receiverCpu())));
      results.csv("overhead-runs", csv);
      return result;
    }
  }

  private static String label(Topology t) {
    return t.name().endsWith("-healthy") ? "S0" : "S1";
  }

  /** Per-pair ratios (with / without) of one scenario, summarised. */
  static OverheadResult.Summary summary(List<OverheadResult.Run> runs, String scenario) {
    List<Double> tput = ratios(runs, scenario, OverheadResult.Run::gbps);
    List<Double> snd = ratios(runs, scenario, OverheadResult.Run::senderCpu);
    List<Double> rcv = ratios(runs, scenario, OverheadResult.Run::receiverCpu);
    List<Double> with = runs.stream().filter(r -> r.scenario().equals(scenario) && r.agent())
        .map(OverheadResult.Run::gbps).toList();
    List<Double> without = runs.stream().filter(r -> r.scenario().equals(scenario) && !r.agent())
        .map(OverheadResult.Run::gbps).toList();
    return new OverheadResult.Summary(scenario, tput.size(), spread(tput), spread(snd), spread(rcv),
        Stats.median(with), Stats.median(without));
  }

  private static List<Double> ratios(List<OverheadResult.Run> runs, String scenario,
      ToDoubleFunction<OverheadResult.Run> f) {
    List<Double> out = new ArrayList<>();
    for (OverheadResult.Run w : runs) {
      if (!w.scenario().equals(scenario) || !w.agent()) {
        continue;
      }
      for (OverheadResult.Run wo : runs) {
        if (wo.scenario().equals(scenario) && !wo.agent() && wo.pair() == w.pair()) {
          out.add(f.applyAsDouble(w) / f.applyAsDouble(wo));
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("summarise overhead of " + scenario + ": no complete pair");
    }
    return out;
  }

  private static OverheadResult.Spread spread(List<Double> v) {
    Stats.Summary s = Stats.summarize(v);
    return new OverheadResult.Spread(s.p50(), s.min(), s.max());
  }

  /** {sender, receiver} CPU percent from iperf3 -J's end.cpu_utilization_percent. */
  static double[] cpu(IperfResult r) {
    try {
      JsonNode c = JSON.readTree(r.rawJson()).path("end").path("cpu_utilization_percent");
      if (!c.path("host_total").isNumber() || !c.path("remote_total").isNumber()) {
        throw new IllegalStateException("read iperf3 CPU: end.cpu_utilization_percent.host_total/remote_total missing");
      }
      return new double[] {c.path("host_total").asDouble(), c.path("remote_total").asDouble()};
    } catch (IOException e) {
      throw new IllegalStateException("read iperf3 CPU: " + e.getMessage(), e);
    }
  }
}
