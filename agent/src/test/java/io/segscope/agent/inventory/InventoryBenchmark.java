package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.netlink.DecodeWarnings;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Benchmark (not a test): 500 veth pairs (1,000 devices) across 4 namespaces, then times full
 * inventory reads and the periodic link refresh, and writes the figures into docs/inventory.md
 * between the "bench" markers. Run as root:
 * {@code java -cp ... io.segscope.agent.inventory.InventoryBenchmark docs/inventory.md}
 */
public final class InventoryBenchmark {
  private static final int PAIRS = 500;
  private static final int RUNS = 7;

  private InventoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path doc = Path.of(args.length > 0 ? args[0] : "docs/inventory.md");
    try (Lab lab = new Lab()) {
      String[] ns = {lab.netns("b0"), lab.netns("b1"), lab.netns("b2"), lab.netns("b3")};
      long t0 = System.nanoTime();
      createPairs(ns[0], ns[1], 0, PAIRS / 2);
      createPairs(ns[2], ns[3], PAIRS / 2, PAIRS);
      System.out.printf("created %d veth devices in %.1f s%n", 2 * PAIRS, (System.nanoTime() - t0) / 1e9);

      DecodeWarnings warnings = new DecodeWarnings();
      InventoryConfig config = InventoryConfig.defaults();
      double[] full = new double[RUNS];
      int devices = 0;
      int mine = 0;
      InventoryReader.read(config, warnings); // warm-up (JIT, JNA)
      for (int i = 0; i < RUNS; i++) {
        long s = System.nanoTime();
        Inventory inv = InventoryReader.read(config, warnings);
        full[i] = (System.nanoTime() - s) / 1e6;
        devices = inv.devices().size();
        List<Long> labNs = new ArrayList<>();
        for (String n : ns) {
          labNs.add(lab.inode(n));
        }
        mine = (int) inv.devices().stream().filter(d -> labNs.contains(d.netns()) && d.kind().equals("veth")).count();
        long resolved = inv.devices().stream().filter(d -> labNs.contains(d.netns()) && d.kind().equals("veth"))
            .filter(d -> inv.linkTarget(d).isPresent()).count();
        if (resolved != mine) {
          throw new IllegalStateException("only " + resolved + " of " + mine + " veth peers resolved");
        }
      }

      double[] refresh = new double[RUNS];
      try (NetnsThread thread = new NetnsThread("bench-netns")) {
        List<NamespaceState> states = new ArrayList<>();
        for (String n : ns) {
          NamespaceState st = InventoryReader.open(thread, new Netns(lab.inode(n), n, Path.of("/run/netns", n), false),
              config, false, warnings);
          st.reload();
          states.add(st);
        }
        for (int i = 0; i < RUNS; i++) {
          long s = System.nanoTime();
          for (NamespaceState st : states) {
            st.refreshLinks();
          }
          refresh[i] = (System.nanoTime() - s) / 1e6;
        }
        states.forEach(NamespaceState::close);
      }
      Arrays.sort(full);
      Arrays.sort(refresh);
      String line = String.format("%d veth devices in 4 namespaces (%d devices on the host in all): full inventory"
          + " read (discover, enter, dump links + features, map nsids) median %.0f ms (min %.0f, max %.0f, %d runs);"
          + " periodic link refresh of the 4 namespaces median %.1f ms. Decode warnings: %d. Kernel %s, %d CPUs"
          + " shared with other work.",
          mine, devices, full[RUNS / 2], full[0], full[RUNS - 1], RUNS, refresh[RUNS / 2], warnings.count(),
          Lab.run("uname", "-r").trim(), Runtime.getRuntime().availableProcessors());
      System.out.println(line);
      writeInto(doc, line);
    }
  }

  private static void createPairs(String from, String to, int start, int end) throws IOException, InterruptedException {
    StringBuilder batch = new StringBuilder();
    for (int i = start; i < end; i++) {
      batch.append("link add bv").append(i).append(" type veth peer name bp").append(i).append(" netns ").append(to)
          .append('\n');
    }
    Process p = new ProcessBuilder("ip", "-n", from, "-batch", "-").redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(batch.toString().getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("create veth pairs in " + from + ": " + out);
    }
  }

  private static void writeInto(Path doc, String line) throws IOException {
    String text = Files.readString(doc);
    String start = "<!-- bench:start -->";
    String end = "<!-- bench:end -->";
    int a = text.indexOf(start);
    int b = text.indexOf(end);
    if (a < 0 || b < a) {
      throw new IllegalStateException(doc + " has no bench markers");
    }
    Files.writeString(doc, text.substring(0, a + start.length()) + "\n" + line + "\n" + text.substring(b));
  }
}
