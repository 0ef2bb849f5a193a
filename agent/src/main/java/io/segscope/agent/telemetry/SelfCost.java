package io.segscope.agent.telemetry;

import io.segscope.exporters.model.ProgramStats;
import io.segscope.probes.BpfStats;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProgramRunStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The agent's own in-kernel cost without taxing the host: the kernel's bpf_stats costs every BPF
 * program on the host two clock reads per run (~65–70 ns measured here) while it is on, so segscope
 * does not leave it on.
 *
 * <ul>
 *   <li>{@code sampled} (default): on for {@code window} in every {@code period} (1 s in 60 s), and each
 *       window's run time and run count are scaled by the cycle's length over the window's (the
 *       programs' cost is proportional to traffic, so a window samples it); the totals are estimates.
 *   <li>{@code always}: on for as long as the agent runs; exact totals, at the cost above for every
 *       BPF program on the host.
 *   <li>{@code off}: never turned on; the totals are whatever the kernel counted while someone else had
 *       bpf_stats on (usually 0).
 * </ul>
 */
public final class SelfCost implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SelfCost.class.getName());

  /** How the agent measures its own programs. */
  public enum Mode {
    OFF, SAMPLED, ALWAYS;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Mode parse(String s) {
      for (Mode m : values()) {
        if (m.label().equals(s.strip().toLowerCase(Locale.ROOT))) {
          return m;
        }
      }
      throw new IllegalArgumentException("expected off, sampled or always, got '" + s + "'");
    }
  }

  /** What to export: per-program totals and how long stats were on. */
  public record Reading(List<ProgramStats> programs, double sampledSeconds) {
    public static final Reading NONE = new Reading(List.of(), 0);
  }

  private final Mode mode;
  private final Duration window;
  private final Duration period;
  private final Supplier<List<ProgramRunStats>> source;
  private final Map<String, double[]> estimates = new HashMap<>();
  private final Thread sampler;
  private volatile boolean stopped;
  private BpfStats always;
  private double sampledSeconds;
  private long started = System.nanoTime();

  public SelfCost(Mode mode, Duration window, Duration period, Supplier<List<ProgramRunStats>> source) {
    if (window.isNegative() || window.isZero() || period.compareTo(window) <= 0) {
      throw new IllegalArgumentException("self-cost sampling: the window (" + window + ") must be positive and"
          + " shorter than the period (" + period + ")");
    }
    this.mode = mode;
    this.window = window;
    this.period = period;
    this.source = source;
    if (mode == Mode.ALWAYS) {
      try {
        always = BpfStats.enable();
      } catch (ProbeException e) {
        LOG.warning(e.getMessage() + ": segscope_probe_run_seconds_total stays 0");
      }
    }
    if (mode == Mode.SAMPLED) {
      sampler = new Thread(this::sampleLoop, "segscope-self-cost");
      sampler.setDaemon(true);
      sampler.start();
    } else {
      sampler = null;
    }
  }

  /** No self-cost measurement: every reading is {@link Reading#NONE} (the report's). */
  public static SelfCost off() {
    return new SelfCost(Mode.OFF, Duration.ofSeconds(1), Duration.ofSeconds(60), List::of);
  }

  public Mode mode() {
    return mode;
  }

  private void sampleLoop() {
    long lastEnd = System.nanoTime();
    while (!stopped) {
      try {
        Thread.sleep(period.minus(window).toMillis());
        Map<String, ProgramRunStats> before = byName(source.get());
        long t0 = System.nanoTime();
        try (BpfStats on = BpfStats.enable()) {
          Thread.sleep(window.toMillis());
          Map<String, ProgramRunStats> after = byName(source.get());
          long t1 = System.nanoTime();
          double scale = (double) (t1 - lastEnd) / Math.max(1, t1 - t0);
          synchronized (this) {
            sampledSeconds += (t1 - t0) / 1e9;
            after.forEach((name, a) -> {
              ProgramRunStats b = before.get(name);
              if (b == null || a.runTimeNanos() < 0) {
                return;
              }
              double[] e = estimates.computeIfAbsent(name, k -> new double[2]);
              e[0] += Math.max(0, a.runTimeNanos() - b.runTimeNanos()) * scale;
              e[1] += Math.max(0, a.runCount() - b.runCount()) * scale;
            });
          }
          lastEnd = t1;
        } catch (ProbeException e) {
          LOG.warning(e.getMessage() + ": the self-cost sample is skipped");
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static Map<String, ProgramRunStats> byName(List<ProgramRunStats> stats) {
    Map<String, ProgramRunStats> m = new HashMap<>();
    stats.forEach(s -> m.put(s.program(), s));
    return m;
  }

  /** The current totals per program (every loaded program, from 0). */
  public synchronized Reading read() {
    List<ProgramStats> out = new ArrayList<>();
    for (ProgramRunStats s : source.get()) {
      long time;
      long count;
      if (mode == Mode.SAMPLED) {
        double[] e = estimates.getOrDefault(s.program(), new double[2]);
        time = Math.round(e[0]);
        count = Math.round(e[1]);
      } else {
        time = Math.max(0, s.runTimeNanos());
        count = Math.max(0, s.runCount());
      }
      out.add(new ProgramStats(s.program(), time, count));
    }
    double on = switch (mode) {
      case ALWAYS -> always == null ? 0 : (System.nanoTime() - started) / 1e9;
      case SAMPLED -> sampledSeconds;
      case OFF -> 0;
    };
    return new Reading(out, on);
  }

  @Override
  public void close() {
    stopped = true;
    if (sampler != null) {
      sampler.interrupt();
    }
    if (always != null) {
      always.close();
    }
  }
}
