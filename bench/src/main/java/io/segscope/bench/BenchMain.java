package io.segscope.bench;

import io.segscope.bench.part.BenchConfig;
import io.segscope.bench.part.CostAccuracyPart;
import io.segscope.bench.part.JmhPart;
import io.segscope.bench.part.OverheadPart;
import io.segscope.bench.part.ScalePart;
import io.segscope.bench.report.BenchmarksMarkdown;
import io.segscope.lab.Lab;
import io.segscope.lab.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The benchmark suite's entry point (run by {@code scripts/bench}).
 *
 * <pre>
 * java -jar segscope-bench.jar run --agent-jar JAR --out DIR --markdown FILE [--quick] [--parts p1,p2,...]
 * java -jar segscope-bench.jar report --out DIR --markdown FILE
 * </pre>
 *
 * Parts: {@code cost} (in-kernel cost and accuracy, one run), {@code overhead}, {@code scale}, {@code jmh}.
 * Each part writes its raw results under DIR; a part that fails is recorded and the others still run.
 * The report is rendered from DIR into FILE. Exit codes: 0 all parts ran, 1 a part failed, 2 bad arguments.
 */
public final class BenchMain {
  static {
    System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %5$s%6$s%n");
  }

  private static final Logger LOG = Logger.getLogger(BenchMain.class.getName());
  static final List<String> PARTS = List.of("cost", "overhead", "scale", "jmh");

  private BenchMain() {}

  public static void main(String[] args) {
    try {
      System.exit(run(Args.parse(args)));
    } catch (IllegalArgumentException e) {
      System.err.println("segscope-bench: " + e.getMessage());
      System.err.println(Args.USAGE);
      System.exit(2);
    }
  }

  static int run(Args a) {
    Results results = new Results(a.out());
    if (a.command().equals("report")) {
      BenchmarksMarkdown.write(results, a.markdown());
      return 0;
    }
    preflight();
    Lab.sweepStale();
    Path benchJar = ownJar();
    BenchConfig config = a.quick() ? BenchConfig.quick(a.agentJar(), benchJar) : BenchConfig.full(a.agentJar(), benchJar);
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    double[] loadBefore = Machine.loadAverage();
    Map<String, String> failures = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    for (String part : a.parts()) {
      LOG.info("part " + part + " ...");
      long p0 = System.nanoTime();
      try {
        switch (part) {
          case "cost" -> new CostAccuracyPart(config, results).run();
          case "overhead" -> new OverheadPart(config, results).run();
          case "scale" -> new ScalePart(config, results).run();
          case "jmh" -> new JmhPart(config, results).run();
          default -> throw new IllegalStateException("unknown part " + part);
        }
        LOG.info(String.format("part %s done in %.0f s", part, (System.nanoTime() - p0) / 1e9));
      } catch (Exception e) {
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        failures.put(part, msg);
        LOG.severe("part " + part + " failed: " + msg);
        e.printStackTrace();
      }
    }
    RunInfo info = new RunInfo(start.toString(), (System.nanoTime() - t0) / 1e9, Machine.probe(), loadBefore,
        Machine.loadAverage(), a.quick(), a.parts(), failures, "tracepoint", relative(a.out()));
    results.write("run", info);
    BenchmarksMarkdown.write(results, a.markdown());
    LOG.info("wrote " + a.markdown() + " and raw results under " + a.out());
    return failures.isEmpty() ? 0 : 1;
  }

  private static String relative(Path out) {
    Path cwd = Path.of("").toAbsolutePath();
    Path abs = out.toAbsolutePath();
    return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
  }

  /** Root and the tools every part needs; fails naming what is missing. */
  private static void preflight() {
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException("run the benchmarks: needs root (namespaces, BPF, bpf_stats)");
    }
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("ip", "iperf3", "ss", "bpftool", "bpftrace", "ethtool")) {
      if (Tools.find(tool).isEmpty()) {
        missing.add(tool);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("run the benchmarks: missing tools " + missing
          + " (scripts/setup --with-test-tools installs them)");
    }
  }

  private static Path ownJar() {
    try {
      Path p = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(p)) {
        throw new IllegalStateException("find the bench jar: running from " + p + ", not a jar (use java -jar)");
      }
      return p;
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("find the bench jar: " + e.getMessage(), e);
    }
  }

  /** Parsed command line. */
  record Args(String command, Path agentJar, Path out, Path markdown, boolean quick, List<String> parts) {
    static final String USAGE = "usage: segscope-bench run --agent-jar JAR --out DIR --markdown FILE [--quick]"
        + " [--parts " + String.join(",", PARTS) + "]\n       segscope-bench report --out DIR --markdown FILE";

    static Args parse(String[] args) {
      if (args.length == 0 || !(args[0].equals("run") || args[0].equals("report"))) {
        throw new IllegalArgumentException("first argument must be run or report");
      }
      Path agentJar = null;
      Path out = null;
      Path markdown = null;
      boolean quick = false;
      List<String> parts = PARTS;
      for (int i = 1; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--agent-jar" -> agentJar = Path.of(value(args, ++i, a));
          case "--out" -> out = Path.of(value(args, ++i, a));
          case "--markdown" -> markdown = Path.of(value(args, ++i, a));
          case "--parts" -> {
            parts = List.of(value(args, ++i, a).split(","));
            for (String p : parts) {
              if (!PARTS.contains(p)) {
                throw new IllegalArgumentException("unknown part " + p + " (parts: " + String.join(",", PARTS) + ")");
              }
            }
          }
          default -> throw new IllegalArgumentException("unknown argument " + a);
        }
      }
      if (out == null || markdown == null) {
        throw new IllegalArgumentException("--out and --markdown are required");
      }
      if (args[0].equals("run") && (agentJar == null || !Files.isRegularFile(agentJar))) {
        throw new IllegalArgumentException("--agent-jar must name the agent's jar (got " + agentJar + ")");
      }
      return new Args(args[0], agentJar, out, markdown, quick, parts);
    }

    private static String value(String[] args, int i, String flag) {
      if (i >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return args[i];
    }
  }
}
