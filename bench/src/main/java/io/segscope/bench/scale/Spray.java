package io.segscope.bench.scale;

import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Sends a little TCP over every device of a {@link DeviceFleet}, in both directions, so that each one
 * queues GSO super-packets and the agent's maps hold an entry for every device: {@link TcpSpray}
 * sinks in every fleet namespace, then from each namespace one connection to every peer address of its
 * group.
 */
public final class Spray {
  private static final Logger LOG = Logger.getLogger(Spray.class.getName());
  static final int PORT = 7000;

  private final Lab lab;
  private final Path benchJar;
  private final Path logDir;

  /**
   * @param benchJar this suite's jar (TcpSpray runs from it inside the namespaces)
   * @param logDir where the sinks' output goes
   */
  public Spray(Lab lab, Path benchJar, Path logDir) {
    this.lab = lab;
    this.benchJar = benchJar;
    this.logDir = logDir;
  }

  /** {@code bytes} per connection over every device of {@code fleet}. */
  public void over(DeviceFleet fleet, int bytes) throws InterruptedException, IOException {
    List<Process> sinks = new ArrayList<>();
    List<Netns> all = new ArrayList<>(fleet.aNamespaces());
    all.addAll(fleet.bNamespaces());
    try {
      for (Netns ns : all) {
        List<String> cmd = new ArrayList<>(List.of(Tools.require("ip"), "netns", "exec", ns.name()));
        cmd.addAll(java("serve", Integer.toString(PORT), "600"));
        sinks.add(new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(logDir.resolve("spray-sink-" + ns.name() + ".log").toFile()).start());
      }
      for (Netns ns : all) {
        awaitListening(ns);
      }
      for (int g = 0; g < fleet.aNamespaces().size(); g++) {
        LOG.fine(send(fleet.aNamespaces().get(g), fleet.addresses(g, 2), bytes, "a" + g).strip());
        LOG.fine(send(fleet.bNamespaces().get(g), fleet.addresses(g, 1), bytes, "b" + g).strip());
      }
    } finally {
      for (Process p : sinks) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private String send(Netns ns, List<String> addresses, int bytes, String tag) throws IOException {
    Path file = lab.workDir().resolve("spray-" + tag + ".txt");
    Files.write(file, addresses);
    return lab.exec(ns, java("send", Integer.toString(PORT), Integer.toString(bytes), file.toString())
        .toArray(String[]::new));
  }

  private List<String> java(String... args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Xshare:auto", "-cp", benchJar.toString(), TcpSpray.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private void awaitListening(Netns ns) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      if (lab.exec(ns, "ss", "-Hltn", "sport = :" + PORT).contains(":" + PORT)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("start the traffic sink in " + ns.name() + ": not listening on :" + PORT
        + " after 120 s");
  }
}
