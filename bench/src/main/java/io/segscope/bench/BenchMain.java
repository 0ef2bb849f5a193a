package io.segscope.bench;

import io.segscope.bench.agent.Launcher;
import io.segscope.bench.common.Machine;
import io.segscope.bench.common.Results;
import io.segscope.bench.common.RunInfo;
import io.segscope.bench.part.BenchConfig;
import io.segscope.bench.part.ContainerPart;
import io.segscope.bench.part.GuestCost;
import io.segscope.bench.part.GuestMemory;
import io.segscope.bench.part.GuestPart;
import io.segscope.bench.part.JmhPart;
import io.segscope.bench.part.KernelPart;
import io.segscope.bench.part.OverheadPart;
import io.segscope.bench.part.ScalePart;
import io.segscope.bench.report.BenchmarksMarkdown;
import io.segscope.lab.Lab;
import io.segscope.lab.Tools;
import java.net.URISyntaxException;
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
 * java -jar segscope-bench.jar run --agent-jar JAR --launcher FILE --out DIR --markdown FILE [--quick] [--parts p,...]
 * java -jar segscope-bench.jar report --out DIR --markdown FILE
 * java -jar segscope-bench.jar guest-memory --agent-jar JAR --launcher FILE --out DIR --devices N --smp S
 * java -jar segscope-bench.jar guest-cost --agent-jar JAR --launcher FILE --out DIR --pairs N
 * </pre>
 *
 * Parts: {@code kernel} (in-kernel cost, runs per super-packet, counts against the oracle),
 * {@code overhead} (UDP sender CPU per segment, iperf3, agent starts), {@code scale} (10/100/1,000
 * devices), {@code guest} (kernel map memory with 128 possible CPUs), {@code jmh}, {@code container} (the
 * image as the DaemonSet runs it, through CRI on a private containerd: memory and CPU at 1,000 devices
 * against the manifest's limit and request; in the default run only where its tools are). Each part writes its
 * raw results under DIR; a part that fails is recorded and the others still run. The report is rendered
 * from DIR into FILE. {@code guest-memory} and {@code guest-cost} are what the guest part runs inside the guest
 * (one boot each). Exit codes: 0
 * all parts ran, 1 a part failed, 2 bad arguments.
 */
public final class BenchMain {
  static {
    System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %5$s%6$s%n");
  }

  private static final Logger LOG = Logger.getLogger(BenchMain.class.getName());
  static final List<String> PARTS = List.of("kernel", "overhead", "scale", "guest", "jmh", "container");
  /**
   * What --quick runs unless --parts says otherwise: the guest boots and compiles for minutes, the container
   * part builds an image and runs for minutes.
   */
  static final List<String> QUICK_PARTS = List.of("kernel", "overhead", "scale", "jmh");

  private BenchMain() {}

  public static void main(String[] args) {
    try {
      System.exit(run(Args.parse(args)));
    } catch (IllegalArgumentException e) {
      System.err.println("segscope-bench: " + e.getMessage());
      System.err.println(Args.USAGE);
      System.exit(2);
    } catch (Exception e) {
      System.err.println("segscope-bench: " + e.getMessage());
      System.exit(1);
    }
  }

  static int run(Args a) throws Exception {
    Results results = new Results(a.out());
    if (a.command().equals("report")) {
      BenchmarksMarkdown.write(results, a.markdown());
      return 0;
    }
    preflight(a.command().equals("guest-memory") ? List.of("ip", "ss")
        : a.command().equals("guest-cost") ? List.of("ip", "iperf3", "ss", "bpftool", "bpftrace")
            : List.of("ip", "iperf3", "ss", "bpftool", "bpftrace", "ethtool", "clang"));
    Lab.sweepStale();
    Path benchJar = ownJar();
    if (a.command().equals("guest-memory")) {
      GuestMemory.run(Launcher.read(a.launcher()), a.agentJar(), benchJar, a.out(), a.devices(), a.smp());
      return 0;
    }
    if (a.command().equals("guest-cost")) {
      GuestCost.run(Launcher.read(a.launcher()), a.agentJar(), a.out(), a.pairs());
      return 0;
    }
    BenchConfig config = a.quick() ? BenchConfig.quick(a.agentJar(), benchJar, a.launcher())
        : BenchConfig.full(a.agentJar(), benchJar, a.launcher());
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    double[] loadBefore = Machine.loadAverage();
    Map<String, String> failures = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    List<String> parts =
        a.parts() != null ? a.parts() : a.quick() ? QUICK_PARTS : defaultParts(ContainerPart.missing());
    for (String part : parts) {
      LOG.info("part " + part + " ...");
      long p0 = System.nanoTime();
      try {
        switch (part) {
          case "kernel" -> new KernelPart(config, results).run();
          case "overhead" -> new OverheadPart(config, results).run();
          case "scale" -> new ScalePart(config, results).run();
          case "guest" -> new GuestPart(config, results).run();
          case "jmh" -> new JmhPart(config, results).run();
          case "container" -> new ContainerPart(config, results).run();
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
        Machine.loadAverage(), a.quick(), parts, failures, config.launcher().javaOptionsLine(),
        config.launcher().environment(), relative(a.out()));
    results.write("run", info);
    BenchmarksMarkdown.write(results, a.markdown());
    LOG.info("wrote " + a.markdown() + " and raw results under " + a.out());
    return failures.isEmpty() ? 0 : 1;
  }

  /** Every part; the container part only when nothing it needs is missing (it says what is, and is left out). */
  static List<String> defaultParts(List<String> containerMissing) {
    if (containerMissing.isEmpty()) {
      return PARTS;
    }
    LOG.warning("part container left out: missing " + containerMissing + " (scripts/setup --with-test-tools)");
    return PARTS.stream().filter(p -> !p.equals("container")).toList();
  }

  private static String relative(Path out) {
    Path cwd = Path.of("").toAbsolutePath();
    Path abs = out.toAbsolutePath();
    return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
  }

  /** Root and the tools the parts need; fails naming what is missing. */
  private static void preflight(List<String> tools) {
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException("run the benchmarks: needs root (namespaces, BPF, bpf_stats)");
    }
    List<String> missing = new ArrayList<>();
    for (String tool : tools) {
      if (tool.equals("clang") ? Tools.clang().isEmpty() : Tools.find(tool).isEmpty()) {
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
    } catch (URISyntaxException e) {
      throw new IllegalStateException("find the bench jar: " + e.getMessage(), e);
    }
  }

  /** Parsed command line; {@code parts} null = the default for the run's length. */
  record Args(String command, Path agentJar, Path launcher, Path out, Path markdown, boolean quick,
      List<String> parts, int devices, String smp, int pairs) {
    static final String USAGE = "usage: segscope-bench run --agent-jar JAR --launcher FILE --out DIR --markdown FILE"
        + " [--quick] [--parts " + String.join(",", PARTS) + "]\n"
        + "       segscope-bench report --out DIR --markdown FILE\n"
        + "       segscope-bench guest-memory --agent-jar JAR --launcher FILE --out DIR --devices N --smp SMP\n"
        + "       segscope-bench guest-cost --agent-jar JAR --launcher FILE --out DIR [--pairs N]";

    static Args parse(String[] args) {
      if (args.length == 0 || !List.of("run", "report", "guest-memory", "guest-cost").contains(args[0])) {
        throw new IllegalArgumentException("first argument must be run, report, guest-memory or guest-cost");
      }
      String command = args[0];
      Path agentJar = null;
      Path launcher = null;
      Path out = null;
      Path markdown = null;
      boolean quick = false;
      List<String> parts = null;
      int devices = 1000;
      String smp = "";
      int pairs = 9;
      for (int i = 1; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--quick" -> quick = true;
          case "--agent-jar" -> agentJar = Path.of(value(args, ++i, a));
          case "--launcher" -> launcher = Path.of(value(args, ++i, a));
          case "--out" -> out = Path.of(value(args, ++i, a));
          case "--markdown" -> markdown = Path.of(value(args, ++i, a));
          case "--smp" -> smp = value(args, ++i, a);
          case "--devices" -> {
            String v = value(args, ++i, a);
            devices = number(v);
            if (devices < 2 || devices % 2 != 0 || devices > 2 * 16384) {
              throw new IllegalArgumentException("--devices must be an even number from 2 to 32768, got " + v);
            }
          }
          case "--pairs" -> {
            String v = value(args, ++i, a);
            pairs = number(v);
            if (pairs < 1 || pairs > 100) {
              throw new IllegalArgumentException("--pairs must be a number from 1 to 100, got " + v);
            }
          }
          case "--parts" -> parts = parts(value(args, ++i, a));
          default -> throw new IllegalArgumentException("unknown argument " + a);
        }
      }
      if (out == null) {
        throw new IllegalArgumentException("--out is required");
      }
      if (!command.startsWith("guest-") && markdown == null) {
        throw new IllegalArgumentException("--markdown is required");
      }
      if (!command.equals("report")) {
        if (agentJar == null || !Files.isRegularFile(agentJar)) {
          throw new IllegalArgumentException("--agent-jar must name the agent's jar (got " + agentJar + ")");
        }
        if (launcher == null || !Files.isRegularFile(launcher)) {
          throw new IllegalArgumentException("--launcher must name the repository's segscope script (got "
              + launcher + ")");
        }
      }
      return new Args(command, agentJar, launcher, out, markdown, quick, parts, devices, smp, pairs);
    }

    /** {@code v} as an int, -1 when it is not one (every bound rejects it). */
    private static int number(String v) {
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    /** The comma-separated parts of {@code --parts}, each one of {@link BenchMain#PARTS}. */
    private static List<String> parts(String v) {
      List<String> parts = List.of(v.split(","));
      for (String p : parts) {
        if (!PARTS.contains(p)) {
          throw new IllegalArgumentException("unknown part " + p + " (parts: " + String.join(",", PARTS) + ")");
        }
      }
      return parts;
    }

    private static String value(String[] args, int i, String flag) {
      if (i >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return args[i];
    }
  }
}
