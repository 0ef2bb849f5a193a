package io.segscope.agent.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.workload.cri.v1.LinuxPodSandboxStatus;
import io.segscope.agent.workload.cri.v1.ListPodSandboxRequest;
import io.segscope.agent.workload.cri.v1.ListPodSandboxResponse;
import io.segscope.agent.workload.cri.v1.Namespace;
import io.segscope.agent.workload.cri.v1.NamespaceMode;
import io.segscope.agent.workload.cri.v1.NamespaceOption;
import io.segscope.agent.workload.cri.v1.PodSandbox;
import io.segscope.agent.workload.cri.v1.PodSandboxMetadata;
import io.segscope.agent.workload.cri.v1.PodSandboxState;
import io.segscope.agent.workload.cri.v1.PodSandboxStatus;
import io.segscope.agent.workload.cri.v1.PodSandboxStatusRequest;
import io.segscope.agent.workload.cri.v1.PodSandboxStatusResponse;
import io.segscope.agent.workload.cri.v1.RuntimeServiceGrpc;
import io.segscope.exporters.SelfMetrics;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resolver against a fake runtime (a real gRPC server on a unix socket, the CRI's own messages)
 * and a fake /proc: plain files whose inodes stand for namespaces (the resolver compares inode and
 * device, as it does with nsfs). No root, no kernel.
 */
class WorkloadResolverTest {
  @TempDir
  Path dir;

  private Path proc;
  private Path socket;
  private EventLoopGroup loop;
  private Server server;
  private final FakeRuntime runtime = new FakeRuntime();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final List<Netns> namespaces = new CopyOnWriteArrayList<>();
  private long root;

  @BeforeEach
  void setUp() throws Exception {
    proc = Files.createDirectories(dir.resolve("proc"));
    root = ns("self");
    namespaces.add(new Netns(root, "", proc.resolve("self/ns/net"), true));
    socket = dir.resolve("containerd.sock");
    loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    server = NettyServerBuilder.forAddress(UnixDomainSocketAddress.of(socket))
        .channelType(NioServerDomainSocketChannel.class).bossEventLoopGroup(loop).workerEventLoopGroup(loop)
        .addService(runtime).build().start();
  }

  @AfterEach
  void tearDown() throws Exception {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** A fake namespace: file proc/PID/ns/net; its inode is the namespace's identity. */
  private long ns(String pid) throws Exception {
    Path p = Files.createDirectories(proc.resolve(pid + "/ns")).resolve("net");
    Files.createFile(p);
    Files.writeString(proc.resolve(pid + "/cgroup"), "0::/\n");
    Files.writeString(proc.resolve(pid + "/comm"), "proc" + pid + "\n");
    return (Long) Files.getAttribute(p, "unix:ino");
  }

  private long pidNamespace(String pid, String name) throws Exception {
    long ino = ns(pid);
    namespaces.add(new Netns(ino, name, proc.resolve(pid + "/ns/net"), false));
    return ino;
  }

  private WorkloadResolver resolver() {
    return new WorkloadResolver(new WorkloadResolver.Config(new CriEndpoints(List.of(socket), false, List.of()),
        Duration.ofMillis(500), Duration.ofSeconds(30), proc), () -> List.copyOf(namespaces), new SelfMetrics(meters),
        Clock.systemUTC());
  }

  private double criErrors() {
    return meters.get("segscope.workload.errors").tag("source", "cri").counter().count();
  }

  @Test
  void podsAreMatchedByNetnsPathThenPidThenThePathsName() throws Exception {
    long byPath = pidNamespace("100", "");
    long byPid = pidNamespace("200", "");
    long byName = pidNamespace("300", "cni-3");
    runtime.add("a", "web-0", false, "{\"pid\": 999, \"runtimeSpec\": {\"linux\": {\"namespaces\": [{\"type\": "
        + "\"network\", \"path\": \"" + proc.resolve("100/ns/net") + "\"}]}}}");
    runtime.add("b", "web-1", false, "{\"pid\": 200}");
    runtime.add("c", "web-2", false, "{\"runtimeSpec\": {\"linux\": {\"namespaces\": [{\"type\": \"network\","
        + " \"path\": \"/elsewhere/cni-3\"}]}}}");
    try (WorkloadResolver r = resolver()) {
      Workloads w = r.resolveNow();
      assertThat(w.byNetns().get(byPath)).isEqualTo(Workload.pod("web-0", "shop", "uid-a", "a", "containerd"));
      assertThat(w.byNetns().get(byPid).pod()).isEqualTo("web-1");
      assertThat(w.byNetns().get(byName).pod()).isEqualTo("web-2");
      assertThat(w.byNetns()).doesNotContainKey(root);
      assertThat(criErrors()).isZero();
      assertThat(meters.get("segscope.cri.up").tag("endpoint", socket.toString()).gauge().value()).isEqualTo(1.0);
    }
  }

  @Test
  void hostNetworkPodsAndTheRootNamespaceAreNeverAPodsAndReadyWinsOverNotReady() throws Exception {
    long shared = pidNamespace("100", "");
    runtime.add("h", "hostnet", true, "{\"pid\": 100}");            // NODE network: shares someone else's
    runtime.add("r", "rooted", false, "{\"pid\": \"self\"}");
    runtime.info.put("r", "{\"runtimeSpec\": {\"linux\": {\"namespaces\": [{\"type\": \"network\", \"path\": \""
        + proc.resolve("self/ns/net") + "\"}]}}}");
    runtime.add("old", "web-0", false, "{\"pid\": 100}");
    runtime.notReady.add("old");
    runtime.add("new", "web-0", false, "{\"pid\": 100}");
    try (WorkloadResolver r = resolver()) {
      Workloads w = r.resolveNow();
      assertThat(w.byNetns().get(shared).container()).as("the ready sandbox of the namespace").isEqualTo("new");
      assertThat(w.byNetns()).doesNotContainKey(root);
      assertThat(w.byNetns().values()).extracting(Workload::pod).doesNotContain("hostnet", "rooted");
    }
  }

  @Test
  void statusIsAskedOncePerSandboxAndAtMost64PerRound() throws Exception {
    pidNamespace("100", "");
    for (int i = 0; i < 100; i++) {
      runtime.add("s" + i, "p" + i, false, "{\"pid\": 100}");
    }
    try (WorkloadResolver r = resolver()) {
      r.resolveNow();
      assertThat(runtime.statusCalls.get()).isEqualTo(CriSource.MAX_STATUS_PER_ROUND);
      r.resolveNow();
      assertThat(runtime.statusCalls.get()).isEqualTo(100);
      r.resolveNow();
      assertThat(runtime.statusCalls.get()).as("known sandboxes are not asked again").isEqualTo(100);
      assertThat(runtime.listCalls.get()).isEqualTo(3);
    }
  }

  @Test
  void aRuntimeThatStopsAnsweringKeepsItsLastGoodAnswerAndIsCounted() throws Exception {
    long pod = pidNamespace("100", "");
    runtime.add("a", "web-0", false, "{\"pid\": 100}");
    try (WorkloadResolver r = resolver()) {
      assertThat(r.resolveNow().byNetns().get(pod).pod()).isEqualTo("web-0");
      runtime.failWith = Status.UNAVAILABLE.withDescription("shutting down");
      Workloads w = r.resolveNow();
      assertThat(w.byNetns().get(pod).pod()).as("last good answer").isEqualTo("web-0");
      assertThat(criErrors()).isEqualTo(1.0);
      assertThat(meters.get("segscope.cri.up").tag("endpoint", socket.toString()).gauge().value()).isZero();
      runtime.failWith = null;
      runtime.sandboxes.clear();
      assertThat(r.resolveNow().byNetns().get(pod).source()).as("the pod is gone: named from its process again")
          .isEqualTo("process");
    }
  }

  @Test
  void aStatusThatTimesOutEndsTheRoundForThatRuntimeAndIsRetriedNextRound() throws Exception {
    long pod = pidNamespace("100", "");
    runtime.add("a", "web-0", false, "{\"pid\": 100}");
    runtime.add("b", "web-1", false, "{\"pid\": 100}");
    runtime.hangStatus = true;
    try (WorkloadResolver r = resolver()) {
      r.resolveNow(); // first call of the client gets 3 s more for the connection; the list answers at once
      long t0 = System.nanoTime();
      assertThat(r.resolveNow().byNetns().get(pod).source()).isEqualTo("process");
      assertThat((System.nanoTime() - t0) / 1_000_000).as("one status deadline, not one per sandbox")
          .isLessThan(1400);
      assertThat(criErrors()).isEqualTo(2.0);
      runtime.hangStatus = false;
      assertThat(r.resolveNow().byNetns().get(pod).source()).isEqualTo("cri");
    }
  }

  @Test
  void withoutAnyRuntimeNamespacesAreNamedByProcessCgroupAndName() throws Exception {
    long docker = pidNamespace("100", "");
    Files.writeString(proc.resolve("100/cgroup"), "0::/system.slice/docker-" + "ab".repeat(32) + ".scope\n");
    long svc = pidNamespace("150", "");
    Files.writeString(proc.resolve("150/cgroup"), "1:name=systemd:/system.slice/dnsmasq.service\n0::/\n");
    Path lower = Files.createDirectories(proc.resolve("160/ns")).resolve("net");
    Files.createLink(lower, proc.resolve("150/ns/net")); // pid 160 shares 150's namespace: 150 owns it
    Files.writeString(proc.resolve("160/cgroup"), "0::/\n");
    Files.writeString(proc.resolve("160/comm"), "child\n");
    long named = ns("nobody");
    Files.delete(proc.resolve("nobody/ns/net"));
    namespaces.add(new Netns(named, "lab-a", dir.resolve("lab-a"), false));
    try (WorkloadResolver r = new WorkloadResolver(new WorkloadResolver.Config(CriEndpoints.none(),
        Duration.ofMillis(500), Duration.ofSeconds(30), proc), () -> List.copyOf(namespaces), new SelfMetrics(meters),
        Clock.systemUTC())) {
      Workloads w = r.resolveNow();
      assertThat(w.byNetns().get(docker).name()).isEqualTo("docker:abababababab");
      assertThat(w.byNetns().get(svc).unit()).isEqualTo("dnsmasq.service");
      assertThat(w.byNetns().get(svc).pid()).isEqualTo(150);
      assertThat(w.of(namespaces.get(namespaces.size() - 1))).isEqualTo(Workload.named("lab-a"));
      assertThat(criErrors()).isZero();
      assertThat(meters.find("segscope.cri.up").gauges()).isEmpty();
    }
  }

  /** A runtime that serves only what the resolver asks, from tables the tests fill. */
  static final class FakeRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    final Map<String, PodSandbox> sandboxes = new ConcurrentHashMap<>();
    final Map<String, String> info = new ConcurrentHashMap<>();
    final Map<String, Boolean> hostNet = new ConcurrentHashMap<>();
    final List<String> notReady = new CopyOnWriteArrayList<>();
    final AtomicInteger listCalls = new AtomicInteger();
    final AtomicInteger statusCalls = new AtomicInteger();
    volatile Status failWith;
    volatile boolean hangStatus;
    private long created;

    void add(String id, String name, boolean hostNetwork, String infoJson) {
      sandboxes.put(id, PodSandbox.newBuilder().setId(id).setCreatedAt(++created)
          .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("shop").setUid("uid-" + id)).build());
      info.put(id, infoJson);
      hostNet.put(id, hostNetwork);
    }

    @Override
    public void listPodSandbox(ListPodSandboxRequest request, StreamObserver<ListPodSandboxResponse> out) {
      listCalls.incrementAndGet();
      if (failWith != null) {
        out.onError(failWith.asRuntimeException());
        return;
      }
      List<PodSandbox> items = new ArrayList<>();
      sandboxes.values().forEach(s -> items.add(s.toBuilder().setState(notReady.contains(s.getId())
          ? PodSandboxState.SANDBOX_NOTREADY : PodSandboxState.SANDBOX_READY).build()));
      out.onNext(ListPodSandboxResponse.newBuilder().addAllItems(items).build());
      out.onCompleted();
    }

    @Override
    public void podSandboxStatus(PodSandboxStatusRequest request, StreamObserver<PodSandboxStatusResponse> out) {
      statusCalls.incrementAndGet();
      if (hangStatus) {
        return; // never answers
      }
      PodSandbox s = sandboxes.get(request.getPodSandboxId());
      if (s == null || !request.getVerbose()) {
        out.onError(Status.NOT_FOUND.asRuntimeException());
        return;
      }
      PodSandboxStatus st = PodSandboxStatus.newBuilder().setId(s.getId()).setMetadata(s.getMetadata())
          .setCreatedAt(s.getCreatedAt())
          .setState(notReady.contains(s.getId()) ? PodSandboxState.SANDBOX_NOTREADY : PodSandboxState.SANDBOX_READY)
          .setLinux(LinuxPodSandboxStatus.newBuilder().setNamespaces(Namespace.newBuilder().setOptions(
              NamespaceOption.newBuilder()
                  .setNetwork(hostNet.get(s.getId()) ? NamespaceMode.NODE : NamespaceMode.POD))))
          .build();
      out.onNext(PodSandboxStatusResponse.newBuilder().setStatus(st).putInfo("info", info.get(s.getId())).build());
      out.onCompleted();
    }
  }
}
