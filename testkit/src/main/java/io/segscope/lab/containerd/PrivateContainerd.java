package io.segscope.lab.containerd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.segscope.lab.Lab;
import io.segscope.lab.LabAddress;
import io.segscope.lab.Netns;
import io.segscope.lab.Prerequisites;
import io.segscope.lab.containerd.criv1.ContainerConfig;
import io.segscope.lab.containerd.criv1.ContainerStatusRequest;
import io.segscope.lab.containerd.criv1.ContainerStatusResponse;
import io.segscope.lab.containerd.criv1.CreateContainerRequest;
import io.segscope.lab.containerd.criv1.LinuxPodSandboxConfig;
import io.segscope.lab.containerd.criv1.LinuxSandboxSecurityContext;
import io.segscope.lab.containerd.criv1.ListPodSandboxRequest;
import io.segscope.lab.containerd.criv1.NamespaceMode;
import io.segscope.lab.containerd.criv1.NamespaceOption;
import io.segscope.lab.containerd.criv1.PodSandboxConfig;
import io.segscope.lab.containerd.criv1.PodSandboxMetadata;
import io.segscope.lab.containerd.criv1.PodSandboxStatusRequest;
import io.segscope.lab.containerd.criv1.PodSandboxStatusResponse;
import io.segscope.lab.containerd.criv1.RemoveContainerRequest;
import io.segscope.lab.containerd.criv1.RemovePodSandboxRequest;
import io.segscope.lab.containerd.criv1.RunPodSandboxRequest;
import io.segscope.lab.containerd.criv1.RuntimeServiceGrpc;
import io.segscope.lab.containerd.criv1.SecurityProfile;
import io.segscope.lab.containerd.criv1.StartContainerRequest;
import io.segscope.lab.containerd.criv1.StopContainerRequest;
import io.segscope.lab.containerd.criv1.StopPodSandboxRequest;
import io.segscope.testkit.Await;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A containerd of the test's own (Debian 12's containerd 1.6 with its CRI plugin, runc, the CNI
 * bridge and host-local plugins), creating real pod sandboxes through CRI as the kubelet does.
 *
 * <p>Everything it makes is its own: config, root, state, CNI configuration and IPAM data and the
 * socket live in the lab's work directory; containerd runs inside a lab namespace (role {@code node},
 * entered with nsenter, so its mounts are the host's), so the CNI bridge, the host sides of the pods'
 * veths and the bridge plugin's sysctls are in that namespace, which has no route anywhere; pod
 * addresses come from a 198.18.0.0/15 subnet; pod namespaces are bind-mounted under the state
 * directory ({@code netns_mounts_under_state_dir}), not /run/netns; the pods' cgroups go under
 * {@code /segscope-lab-<prefix>/kubepods/besteffort/pod<uid>} (a kubelet-like layout of the lab's own).
 * containerd 1.6 keeps shim sockets in /run/containerd/s (not configurable): those of this
 * containerd's sandboxes are named by a hash of its socket path and checked gone on close.
 *
 * <p>{@link #close()} removes every sandbox, stops containerd, removes the cgroups, and
 * {@link #leftovers()} then names anything of it that remains.
 */
public final class PrivateContainerd implements AutoCloseable {
  /** What the CRI config needs on this machine: see the class comment of the test. */
  static final String CNI_BIN = "/usr/lib/cni";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A pod sandbox this containerd made. */
  public record Pod(String id, String name, String namespace, String uid, boolean hostNetwork, Path netnsPath,
      long netnsInode, long pid, String ip, String hostVeth) {}

  private final Lab lab;
  private final Netns node;
  private final Path dir;
  private final Path socket;
  private final Process containerd;
  private final EventLoopGroup loop;
  private final ManagedChannel channel;
  private final RuntimeServiceGrpc.RuntimeServiceBlockingStub cri;
  private final Map<String, Pod> pods = new LinkedHashMap<>();
  private final Map<String, PodSandboxConfig> configs = new LinkedHashMap<>();
  private final ContainerdTeardown host;
  private boolean closed;
  private boolean netnsDirShared;

  private PrivateContainerd(Lab lab, Netns node, Path dir, Process containerd, boolean runContainerdExisted) {
    this.lab = lab;
    this.node = node;
    this.dir = dir;
    this.socket = dir.resolve("containerd.sock");
    this.containerd = containerd;
    this.host = new ContainerdTeardown(node, dir, socket, netnsDir(), cgroupRoot(),
        runContainerdExisted);
    this.loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.channel = NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socket))
        .channelType(NioDomainSocketChannel.class).eventLoopGroup(loop).usePlaintext()
        .overrideAuthority("localhost").build();
    this.cri = RuntimeServiceGrpc.newBlockingStub(channel);
  }

  /** Skips (or on CI fails) the test unless containerd, runc, the CNI plugins and busybox-static are here. */
  public static void requirePrerequisites() {
    Prerequisites.requireLab();
    for (String tool : List.of("containerd", "ctr", "runc", "nsenter", "tar")) {
      Prerequisites.requireTool(tool, "the containerd lab (scripts/setup --with-test-tools)");
    }
    for (String plugin : List.of("bridge", "host-local", "loopback")) {
      if (!Files.isExecutable(Path.of(CNI_BIN, plugin))) {
        Prerequisites.unmet("the containerd lab needs the CNI " + plugin + " plugin in " + CNI_BIN
            + " (apt-get install containernetworking-plugins)");
      }
    }
    if (!Files.isExecutable(PauseImage.BUSYBOX)) {
      Prerequisites.unmet("the containerd lab's pause image needs " + PauseImage.BUSYBOX
          + " (apt-get install busybox-static)");
    }
  }

  /**
   * Starts containerd in a new lab namespace {@code <prefix>-node}, with a CNI bridge network on
   * {@code subnet} (a /24 of 198.18.0.0/15), and imports the pause image.
   */
  public static PrivateContainerd start(Lab lab, String subnet) throws Exception {
    requirePrerequisites();
    LabAddress.requireLab(subnet);
    Netns node = lab.namespace("node");
    Path dir = Files.createDirectories(lab.workDir().resolve("cri"));
    Files.createDirectories(dir.resolve("net.d"));
    Files.writeString(dir.resolve("net.d/10-lab.conflist"), LabConfigs.cni(dir, subnet));
    Files.writeString(dir.resolve("config.toml"), LabConfigs.containerd(dir));
    boolean existed = Files.exists(Path.of("/run/containerd"));
    Process p = new ProcessBuilder("nsenter", "--net=/run/netns/" + node.name(), "--", "containerd", "--config",
        dir.resolve("config.toml").toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("containerd.log").toFile()).start();
    PrivateContainerd c = new PrivateContainerd(lab, node, dir, p, existed);
    try {
      c.awaitCri(Duration.ofSeconds(30));
      Path image = PauseImage.build(Files.createDirectories(dir.resolve("image")));
      c.ctr("images", "import", image.toString());
    } catch (Exception | AssertionError e) {
      try {
        c.close();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return c;
  }

  private void awaitCri(Duration timeout) throws Exception {
    String[] last = {""};
    Await.atMost(timeout).every(Duration.ofMillis(100)).untilOrFail(() -> {
      if (!containerd.isAlive()) {
        throw new AssertionError("containerd exited with " + containerd.exitValue() + ":\n" + log());
      }
      if (!Files.exists(socket)) {
        return false;
      }
      try {
        cri.withDeadlineAfter(1, TimeUnit.SECONDS).listPodSandbox(ListPodSandboxRequest.getDefaultInstance());
        return true;
      } catch (io.grpc.StatusRuntimeException e) {
        last[0] = e.getMessage();
        return false;
      }
    }, () -> "containerd's CRI did not answer within " + timeout + " (" + last[0] + "):\n" + log());
  }

  public Path socket() {
    return socket;
  }

  /** Where containerd bind-mounts the pods' network namespaces (the agent's --netns-dir). */
  public Path netnsDir() {
    return dir.resolve("state/io.containerd.grpc.v1.cri/netns");
  }

  /** The lab namespace containerd, the CNI bridge and the host sides of the pods' veths are in. */
  public Netns node() {
    return node;
  }

  public String log() {
    try {
      return Files.readString(dir.resolve("containerd.log"));
    } catch (IOException e) {
      return "(no containerd log: " + e.getMessage() + ")";
    }
  }

  /** Creates a pod sandbox (RunPodSandbox, as the kubelet does) and reads back where it landed. */
  public synchronized Pod runPod(String name, String namespace, boolean hostNetwork) throws Exception {
    return runPod(name, namespace, hostNetwork, false);
  }

  /**
   * A pod sandbox in the node's network and PID namespaces ({@code hostNetwork: true, hostPID: true}:
   * a DaemonSet's agent pod), with the runtime's default seccomp profile ({@code RuntimeDefault}).
   */
  public synchronized Pod runHostPod(String name, String namespace) throws Exception {
    return runPod(name, namespace, true, true);
  }

  private Pod runPod(String name, String namespace, boolean hostNetwork, boolean hostPid) throws Exception {
    String uid = UUID.randomUUID().toString();
    LinuxSandboxSecurityContext.Builder security = LinuxSandboxSecurityContext.newBuilder().setNamespaceOptions(
        NamespaceOption.newBuilder().setNetwork(hostNetwork ? NamespaceMode.NODE : NamespaceMode.POD)
            .setPid(hostPid ? NamespaceMode.NODE : NamespaceMode.CONTAINER).setIpc(NamespaceMode.POD));
    if (hostPid) {
      security.setSeccomp(SecurityProfile.newBuilder().setProfileType(SecurityProfile.ProfileType.RuntimeDefault));
    }
    PodSandboxConfig config = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace(namespace).setUid(uid))
        .setHostname(hostNetwork ? "" : name) // a pod in the node's network shares its UTS namespace too
        .setLogDirectory(Files.createDirectories(dir.resolve("logs/" + uid)).toString())
        .putLabels("io.kubernetes.pod.name", name)
        .setLinux(LinuxPodSandboxConfig.newBuilder()
            .setCgroupParent(cgroupRoot() + "/kubepods/besteffort/pod" + uid)
            .setSecurityContext(security))
        .build();
    String id = cri.withDeadlineAfter(60, TimeUnit.SECONDS)
        .runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(config).build()).getPodSandboxId();
    host.sandbox(id);
    configs.put(id, config);
    PodSandboxStatusResponse status = cri.withDeadlineAfter(20, TimeUnit.SECONDS).podSandboxStatus(
        PodSandboxStatusRequest.newBuilder().setPodSandboxId(id).setVerbose(true).build());
    JsonNode info = JSON.readTree(status.getInfoOrDefault("info", "{}"));
    long pid = info.path("pid").asLong();
    if (pid <= 0) {
      throw new AssertionError("sandbox " + id + " reports no pid: " + status);
    }
    host.pause(pid);
    Path netns = hostNetwork ? Path.of("/proc/" + pid + "/ns/net") : Path.of(PodNetwork.netnsPath(id, info));
    long inode = (Long) Files.getAttribute(netns, "unix:ino");
    String hostVeth = hostNetwork ? "" : PodNetwork.hostVeth(node, netns, name);
    Pod pod = new Pod(id, name, namespace, uid, hostNetwork, netns, inode, pid, status.getStatus().getNetwork().getIp(),
        hostVeth);
    pods.put(id, pod);
    return pod;
  }

  /**
   * Makes {@link #netnsDir()} a shared mount (a bind mount of itself), as /run is on a systemd node: a
   * container that mounts it with HostToContainer propagation (rslave) requires that, and then sees
   * the pod namespaces made after it started. {@link #close()} unmounts it.
   */
  public synchronized void shareNetnsDir() throws Exception {
    Path d = Files.createDirectories(netnsDir());
    exec(List.of("mount", "--bind", d.toString(), d.toString()));
    netnsDirShared = true;
    exec(List.of("mount", "--make-shared", d.toString()));
  }

  /** Imports an image archive (OCI or Docker) into the namespace the CRI plugin uses (k8s.io). */
  public void importImage(Path archive) throws Exception {
    ctr("images", "import", archive.toString());
  }

  /**
   * Creates and starts a container in a pod (CreateContainer, StartContainer, as the kubelet does); its
   * stdout and stderr go to {@link #containerLog}. Returns its id.
   */
  public synchronized String startContainer(Pod pod, ContainerConfig config) {
    PodSandboxConfig sandbox = configs.get(pod.id());
    String id = cri.withDeadlineAfter(120, TimeUnit.SECONDS).createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId(pod.id()).setConfig(config).setSandboxConfig(sandbox).build()).getContainerId();
    cri.withDeadlineAfter(60, TimeUnit.SECONDS).startContainer(StartContainerRequest.newBuilder()
        .setContainerId(id).build());
    return id;
  }

  /** ContainerStatus, verbose (its info holds the pid and the OCI spec runc was given). */
  public ContainerStatusResponse containerStatus(String id) {
    return cri.withDeadlineAfter(20, TimeUnit.SECONDS).containerStatus(ContainerStatusRequest.newBuilder()
        .setContainerId(id).setVerbose(true).build());
  }

  /** StopContainer: SIGTERM, then SIGKILL after {@code graceSeconds}, as the kubelet stops a pod. */
  public void stopContainer(String id, long graceSeconds) {
    cri.withDeadlineAfter(graceSeconds + 30, TimeUnit.SECONDS).stopContainer(StopContainerRequest.newBuilder()
        .setContainerId(id).setTimeout(graceSeconds).build());
  }

  public void removeContainer(String id) {
    cri.withDeadlineAfter(60, TimeUnit.SECONDS).removeContainer(RemoveContainerRequest.newBuilder()
        .setContainerId(id).build());
  }

  /** The CRI log of a container (lines "TIME STREAM P|F TEXT"), at the pod's log directory. */
  public Path containerLog(Pod pod, ContainerConfig config) {
    return Path.of(configs.get(pod.id()).getLogDirectory()).resolve(config.getLogPath());
  }

  /** Stops and removes a sandbox (StopPodSandbox, RemovePodSandbox: CNI DEL, netns and cgroup gone). */
  public synchronized void removePod(Pod pod) {
    removeSandbox(pod.id());
    pods.remove(pod.id());
  }

  private void removeSandbox(String id) {
    cri.withDeadlineAfter(60, TimeUnit.SECONDS).stopPodSandbox(StopPodSandboxRequest.newBuilder()
        .setPodSandboxId(id).build());
    cri.withDeadlineAfter(60, TimeUnit.SECONDS).removePodSandbox(RemovePodSandboxRequest.newBuilder()
        .setPodSandboxId(id).build());
  }

  /** The cgroup under which this lab's pods live, in every hierarchy. */
  private String cgroupRoot() {
    return "/segscope-lab-" + lab.prefix();
  }

  /**
   * What of this containerd's making remains on the machine (to be called after {@link #close()}):
   * processes, mounts, pod namespaces, devices besides lo (the bridge, veths) in the node namespace,
   * iptables rules there, cgroups, shim sockets. Empty after a clean close.
   */
  public List<String> leftovers() throws Exception {
    return host.leftovers();
  }

  /**
   * Removes every sandbox, stops containerd, removes the lab's cgroups and the shim socket directory
   * if this containerd made it. Throws, after doing all of it, if a step failed.
   */
  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    List<String> failures = new ArrayList<>();
    for (String id : List.copyOf(pods.keySet())) {
      try {
        removeSandbox(id);
        pods.remove(id);
      } catch (RuntimeException e) {
        failures.add("remove pod sandbox " + id + ": " + e.getMessage());
      }
    }
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (containerd.isAlive()) {
      containerd.destroy();
      if (!containerd.waitFor(20, TimeUnit.SECONDS)) {
        containerd.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        failures.add("containerd did not stop within 20 s of SIGTERM");
      }
    }
    failures.addAll(host.clean(netnsDirShared));
    if (!failures.isEmpty()) {
      throw new AssertionError("tear down the lab's containerd: " + String.join("; ", failures) + "\ncontainerd log:\n"
          + log());
    }
  }

  public void ctr(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("ctr", "--address", socket.toString(), "--namespace", "k8s.io"));
    cmd.addAll(List.of(args));
    exec(cmd);
  }

  public static String exec(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("run `" + String.join(" ", cmd) + "`: no exit within 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException("run `" + String.join(" ", cmd) + "`: exit " + p.exitValue() + ": " + out.strip());
    }
    return out;
  }

  /** Every pod still running. */
  public synchronized List<Pod> pods() {
    return List.copyOf(pods.values());
  }
}
