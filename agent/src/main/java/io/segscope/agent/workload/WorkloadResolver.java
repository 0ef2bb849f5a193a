package io.segscope.agent.workload;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.exporters.SelfMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Resolves the workload of every network namespace, read-only: the pod, from each container
 * runtime's CRI socket (ListPodSandbox + verbose PodSandboxStatus, matched by the netns path, else
 * the sandbox's pid, else the path's name); for the others, the owning process' cgroup (container id,
 * pod uid, systemd unit) or name; then the /run/netns name.
 *
 * <p>Runs on its own thread, "segscope-workloads": a round after every change of the namespace set
 * ({@link #namespacesChanged()}), again shortly after (a sandbox is listed only once it has started),
 * and every {@code refresh}. Telemetry only ever reads {@link #current()}, the last complete round, so
 * a runtime that is absent, slow or hanging never delays it: each call has a deadline, a failed round
 * keeps that runtime's last good answer, and failures are counted in
 * {@code segscope_workload_errors_total{source}}.
 */
public final class WorkloadResolver implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(WorkloadResolver.class.getName());
  /** After a namespace change: wait this long (let a burst settle), then one more round this much later. */
  private static final long SETTLE_MILLIS = 200;
  private static final long FOLLOW_UP_MILLIS = 2000;

  /**
   * @param endpoints which CRI sockets to ask
   * @param callTimeout the deadline of one CRI call
   * @param refresh rounds at least this often
   * @param proc the procfs mount
   */
  public record Config(CriEndpoints endpoints, Duration callTimeout, Duration refresh, Path proc) {
    public Config {
      if (callTimeout.isNegative() || callTimeout.isZero()) {
        throw new IllegalArgumentException("CRI call timeout must be positive, got " + callTimeout);
      }
      if (refresh.isNegative() || refresh.isZero()) {
        throw new IllegalArgumentException("workload refresh interval must be positive, got " + refresh);
      }
    }

    public static Config defaults() {
      return new Config(CriEndpoints.defaults(), Duration.ofSeconds(2), Duration.ofSeconds(10), Path.of("/proc"));
    }
  }

  private final Config config;
  private final Supplier<List<Netns>> namespaces;
  private final Clock clock;
  private final ProcessOwners owners;
  private final Map<Path, CriSource> sources = new LinkedHashMap<>();
  private final Map<Path, AtomicInteger> upGauges = new HashMap<>();
  private final SelfMetrics self;
  private final Counter criErrors;
  private final Counter procErrors;
  private final Timer roundTimer;
  private final Object wake = new Object();
  private final Thread thread;
  private volatile Workloads current = Workloads.none();
  private volatile boolean closing;
  private boolean changed;
  private final Map<Path, Boolean> loggedUp = new HashMap<>();

  public WorkloadResolver(Config config, Supplier<List<Netns>> namespaces, SelfMetrics self, Clock clock) {
    this.config = config;
    this.namespaces = namespaces;
    this.clock = clock;
    this.self = self;
    this.owners = new ProcessOwners(config.proc());
    this.criErrors = self.workloadErrors("cri");
    this.procErrors = self.workloadErrors("proc");
    this.roundTimer = self.workloadRefresh();
    this.thread = new Thread(this::run, "segscope-workloads");
    this.thread.setDaemon(true);
  }

  /** Starts the resolver's thread; its first round runs at once. */
  public void start() {
    synchronized (wake) {
      changed = true;
    }
    thread.start();
  }

  /** The last complete round. Never blocks. */
  public Workloads current() {
    return current;
  }

  /** Asks for a round soon: the set of namespaces changed. Never blocks. */
  public void namespacesChanged() {
    synchronized (wake) {
      changed = true;
      wake.notifyAll();
    }
  }

  private void run() {
    long nextFollowUp = Long.MAX_VALUE;
    while (!closing) {
      try {
        boolean triggered;
        synchronized (wake) {
          long waitMillis = Math.min(config.refresh().toMillis(),
              Math.max(1, (nextFollowUp - System.nanoTime()) / 1_000_000));
          if (!changed) {
            wake.wait(Math.max(1, waitMillis));
          }
          triggered = changed;
          changed = false;
        }
        if (closing) {
          return;
        }
        if (triggered) {
          Thread.sleep(SETTLE_MILLIS);
          nextFollowUp = System.nanoTime() + FOLLOW_UP_MILLIS * 1_000_000;
        } else if (System.nanoTime() >= nextFollowUp) {
          nextFollowUp = Long.MAX_VALUE;
        }
        resolveNow();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        procErrors.increment();
        LOG.warning("resolve workloads: " + e);
      }
    }
  }

  /** One round on the caller's thread (what the resolver's thread runs); also publishes it. */
  public synchronized Workloads resolveNow() {
    Timer.Sample sample = Timer.start();
    try {
      List<Netns> list = namespaces.get();
      Workloads w = resolve(list);
      current = w;
      return w;
    } finally {
      sample.stop(roundTimer);
    }
  }

  private Workloads resolve(List<Netns> list) {
    Set<Long> inodes = new HashSet<>();
    Map<String, Long> byName = new HashMap<>();
    long root = -1;
    for (Netns n : list) {
      inodes.add(n.inode());
      if (!n.name().isEmpty()) {
        byName.put(n.name(), n.inode());
      }
      if (n.root()) {
        root = n.inode();
      }
    }
    Map<Long, Workload> out = new HashMap<>();
    Map<Long, CriSource.Sandbox> chosen = new HashMap<>();
    long nsfs = ProcessOwners.device(config.proc().resolve("self/ns/net"));
    for (Path socket : activeSockets()) {
      CriSource src = sources.get(socket);
      String runtime = CriEndpoints.runtimeOf(socket);
      for (CriSource.Sandbox s : src.refresh()) {
        if (s.hostNetwork() || s.info().netnsClosed()) {
          continue;
        }
        long ino = inodeOf(s, byName, nsfs);
        if (ino < 0 || ino == root || !inodes.contains(ino)) {
          continue;
        }
        CriSource.Sandbox prev = chosen.get(ino);
        if (prev == null || (s.ready() && !prev.ready())
            || (s.ready() == prev.ready() && s.createdAt() > prev.createdAt())) {
          chosen.put(ino, s);
          out.put(ino, Workload.pod(s.name(), s.namespace(), s.uid(), s.id(), runtime));
        }
      }
      logState(src);
    }
    Set<Long> rest = new HashSet<>(inodes);
    rest.removeAll(out.keySet());
    rest.remove(root);
    try {
      out.putAll(owners.owners(rest));
    } catch (IOException | RuntimeException e) {
      procErrors.increment();
      LOG.warning("read process owners of network namespaces from " + config.proc() + ": " + e.getMessage());
    }
    return new Workloads(out, clock.instant());
  }

  /** The sandbox's namespace inode: its netns path, else its pid's namespace, else the path's name. */
  private long inodeOf(CriSource.Sandbox s, Map<String, Long> byName, long nsfs) {
    if (s.info().netnsPath().isPresent()) {
      Path p = Path.of(s.info().netnsPath().get());
      long ino = ProcessOwners.inode(p);
      if (ino >= 0 && ProcessOwners.device(p) == nsfs) {
        return ino;
      }
    }
    if (s.info().pid().isPresent()) {
      Path p = config.proc().resolve(s.info().pid().getAsLong() + "/ns/net");
      long ino = ProcessOwners.inode(p);
      if (ino >= 0 && ProcessOwners.device(p) == nsfs) {
        return ino;
      }
    }
    if (s.info().netnsPath().isPresent()) {
      Path name = Path.of(s.info().netnsPath().get()).getFileName();
      if (name != null) {
        return byName.getOrDefault(name.toString(), -1L);
      }
    }
    return -1;
  }

  /** The sockets to ask this round; sources of sockets no longer wanted are closed. */
  private List<Path> activeSockets() {
    List<Path> want = config.endpoints().current();
    for (var it = sources.entrySet().iterator(); it.hasNext();) {
      var e = it.next();
      if (!want.contains(e.getKey())) {
        e.getValue().close();
        it.remove();
      }
    }
    List<Path> out = new ArrayList<>();
    for (Path p : want) {
      sources.computeIfAbsent(p, s -> {
        AtomicInteger up = upGauges.computeIfAbsent(s, x -> self.criUp(x.toString()));
        return new CriSource(s, config.callTimeout(), msg -> {
          criErrors.increment();
          LOG.fine(msg);
        });
      });
      out.add(p);
    }
    return out;
  }

  private void logState(CriSource src) {
    upGauges.get(src.socket()).set(src.up() ? 1 : 0);
    Boolean before = loggedUp.put(src.socket(), src.up());
    if (before == null || before != src.up()) {
      if (src.up()) {
        LOG.info("CRI " + src.socket() + ": answering; pods are named from it");
      } else {
        LOG.warning(src.lastError() + "; namespaces are named from cgroups and names until it answers"
            + (Files.exists(src.socket()) ? "" : " (the socket does not exist)"));
      }
    }
  }

  @Override
  public void close() {
    closing = true;
    thread.interrupt();
    try {
      if (thread.isAlive()) {
        thread.join(5000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      sources.values().forEach(CriSource::close);
      sources.clear();
    }
  }
}
