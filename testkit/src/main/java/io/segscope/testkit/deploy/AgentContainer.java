package io.segscope.testkit.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Lab;
import io.segscope.lab.containerd.PrivateContainerd;
import io.segscope.lab.containerd.PrivateContainerd.Pod;
import io.segscope.lab.containerd.criv1.ContainerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The agent's container on the containerd lab's node, as ContainerImageIT and the bench's container part
 * run it: the image built by scripts/image, the CRI config the kubelet makes of the rendered DaemonSet
 * with the node's host paths mapped to the lab's ({@link #config}), the container's pid, and its cgroup
 * files.
 */
public final class AgentContainer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AgentContainer() {}

  /**
   * Builds the image with {@code scripts/image --jar JAR --tag TAG --quiet} and returns the OCI archive
   * it wrote (its last line on stdout). Its messages go to this process' stderr.
   */
  public static Path buildImage(Path jar, String tag) throws IOException, InterruptedException {
    Path script = RepoFiles.path("scripts/image");
    List<String> cmd = List.of(script.toString(), "--jar", jar.toString(), "--tag", tag, "--quiet");
    Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!proc.waitFor(20, TimeUnit.MINUTES)) {
      proc.destroyForcibly();
      throw new IllegalStateException("scripts/image did not finish within 20 min");
    }
    if (proc.exitValue() != 0) {
      throw new IllegalStateException("scripts/image exited " + proc.exitValue() + "; stdout: " + out.strip());
    }
    List<String> lines = out.lines().toList();
    Path archive = lines.isEmpty() ? null : Path.of(lines.get(lines.size() - 1));
    if (archive == null || !Files.isRegularFile(archive)) {
      throw new IllegalStateException("scripts/image named no archive on its last line: " + out.strip());
    }
    return archive;
  }

  /**
   * The kubelet's CRI config of the agent's container in {@code p}: the node's {@code /run/netns} is
   * where the lab's containerd pins pod namespaces, its containerd socket the lab's; every other
   * hostPath is the host's own; each emptyDir a directory of the lab's; {@code status.hostIP} is
   * {@code nodeIp}. {@code extraArgs} are appended to the manifest's args.
   */
  public static ContainerConfig config(AgentPod pod, PrivateContainerd containerd, Lab lab, String image,
      String nodeIp, Pod p, String logName, List<String> extraArgs) throws IOException {
    Map<String, String> hostPaths = Map.of("/run/netns", containerd.netnsDir().toString(),
        "/run/containerd/containerd.sock", containerd.socket().toString());
    Path volumes = Files.createDirectories(lab.workDir().resolve("volumes/" + p.uid()));
    return pod.containerConfig(image, Map.of("status.hostIP", nodeIp), h -> hostPaths.getOrDefault(h, h),
        name -> {
          try {
            return Files.createDirectories(volumes.resolve(name)).toString();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }, logName, extraArgs);
  }

  /** The pid (in this PID namespace) of a running container, from its verbose ContainerStatus. */
  public static long pid(PrivateContainerd containerd, String id) throws IOException {
    JsonNode info = JSON.readTree(containerd.containerStatus(id).getInfoOrThrow("info"));
    long pid = info.path("pid").asLong();
    if (pid <= 0) {
      throw new IllegalStateException("container " + id + " reports no pid: " + info);
    }
    return pid;
  }

  /** The cgroup (v1) directory of {@code pid} in the hierarchy holding {@code controller}. */
  public static Path cgroupV1(long pid, String controller) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
      String[] f = line.split(":", 3);
      if (f.length == 3 && List.of(f[1].split(",")).contains(controller)) {
        return Path.of("/sys/fs/cgroup", f[1], f[2].substring(1));
      }
    }
    throw new IllegalStateException("no cgroup v1 " + controller + " hierarchy for process " + pid);
  }

  /** A number a cgroup (v1) file of {@code pid}'s holds, e.g. ("memory", "memory.limit_in_bytes"). */
  public static long cgroupValue(long pid, String controller, String file) throws IOException {
    return Long.parseLong(Files.readString(cgroupV1(pid, controller).resolve(file)).strip());
  }

  /**
   * The memory {@code pid}'s memory cgroup charges (what its limit is held against): cgroup v1
   * {@code memory.usage_in_bytes}, v2 {@code memory.current}.
   */
  public static long memoryCurrent(long pid) throws IOException {
    Path v1 = v1OrNull(pid, "memory");
    return v1 != null ? number(v1.resolve("memory.usage_in_bytes")) : number(v2(pid).resolve("memory.current"));
  }

  /**
   * The inactive file pages of that charge (page cache the kernel reclaims first): memory.stat's
   * {@code total_inactive_file} (v1) or {@code inactive_file} (v2). The kubelet's working set is
   * {@link #memoryCurrent} minus this.
   */
  public static long memoryInactiveFile(long pid) throws IOException {
    Path v1 = v1OrNull(pid, "memory");
    return stat(v1 != null ? v1.resolve("memory.stat") : v2(pid).resolve("memory.stat"),
        v1 != null ? "total_inactive_file" : "inactive_file");
  }

  /**
   * The most {@code pid}'s memory cgroup ever held: v1 {@code memory.max_usage_in_bytes}, v2
   * {@code memory.peak} (kernel 5.19 and later); 0 when there is neither.
   */
  public static long memoryPeak(long pid) throws IOException {
    Path v1 = v1OrNull(pid, "memory");
    Path f = v1 != null ? v1.resolve("memory.max_usage_in_bytes") : v2(pid).resolve("memory.peak");
    return Files.exists(f) ? number(f) : 0;
  }

  /** CPU time of {@code pid}'s cgroup in ns: v1 {@code cpuacct.usage}, v2 {@code cpu.stat usage_usec}. */
  public static long cpuUsageNanos(long pid) throws IOException {
    Path v1 = v1OrNull(pid, "cpuacct");
    return v1 != null ? number(v1.resolve("cpuacct.usage")) : stat(v2(pid).resolve("cpu.stat"), "usage_usec") * 1000;
  }

  private static Path v1OrNull(long pid, String controller) throws IOException {
    try {
      return cgroupV1(pid, controller);
    } catch (IllegalStateException e) {
      return null;
    }
  }

  /** The cgroup v2 directory of {@code pid} (the {@code 0::} line), where the unified hierarchy is mounted. */
  private static Path v2(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
      if (line.startsWith("0::")) {
        Path root = Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers")) ? Path.of("/sys/fs/cgroup")
            : Path.of("/sys/fs/cgroup/unified");
        return root.resolve(line.substring(4));
      }
    }
    throw new IllegalStateException("process " + pid + " is in no cgroup v2 hierarchy and no v1 one");
  }

  private static long number(Path file) throws IOException {
    return Long.parseLong(Files.readString(file).strip());
  }

  private static long stat(Path file, String key) throws IOException {
    for (String line : Files.readAllLines(file)) {
      String[] kv = line.split(" ");
      if (kv.length == 2 && kv[0].equals(key)) {
        return Long.parseLong(kv[1]);
      }
    }
    throw new IllegalStateException("no " + key + " in " + file);
  }
}
