package io.segscope.agent.workload;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the workload of a process from its cgroup path (/proc/PID/cgroup) and its name: a container
 * id (Docker, Podman, containerd, CRI-O, under Kubernetes or not) with the pod uid when the path is a
 * kubepods one, else a systemd unit, else the process itself. Pure: the text in, a {@link Workload} out.
 */
public final class CgroupOwner {
  /** docker-ID.scope, crio-ID.scope, libpod-ID.scope, cri-containerd-ID.scope, or a bare ID. */
  private static final Pattern CONTAINER = Pattern.compile(
      "(?:(docker|crio|libpod|cri-containerd|containerd)-)?([0-9a-f]{64})(?:\\.scope)?");
  /** cgroupfs: pod6f1c2a52-...; systemd: kubepods-burstable-pod6f1c2a52_....slice. */
  private static final Pattern POD_CGROUPFS =
      Pattern.compile("pod([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
  private static final Pattern POD_SYSTEMD = Pattern.compile(
      "kubepods(?:-[a-z]+)*-pod([0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12})\\.slice");
  private static final Pattern SESSION = Pattern.compile("session-[0-9a-z]+\\.scope");

  private CgroupOwner() {}

  /**
   * The cgroup path that says most about a process, from the text of /proc/PID/cgroup: the unified
   * hierarchy's ({@code 0::PATH}) unless it is the root, else the named systemd hierarchy's, else the
   * first v1 controller's that is not the root; "/" when every one is the root.
   */
  public static String path(String procCgroup) {
    String unified = null;
    String systemd = null;
    String v1 = null;
    for (String line : procCgroup.split("\n")) {
      int a = line.indexOf(':');
      int b = a < 0 ? -1 : line.indexOf(':', a + 1);
      if (b < 0) {
        continue;
      }
      String controllers = line.substring(a + 1, b);
      String path = line.substring(b + 1);
      if (path.isEmpty() || path.equals("/")) {
        continue;
      }
      if (line.startsWith("0::")) {
        unified = path;
      } else if (controllers.equals("name=systemd")) {
        systemd = path;
      } else if (v1 == null) {
        v1 = path;
      }
    }
    return unified != null ? unified : systemd != null ? systemd : v1 != null ? v1 : "/";
  }

  /**
   * The workload of a process in cgroup {@code path} named {@code comm} (its /proc/PID/comm).
   *
   * @param pid the process, kept for the API
   */
  public static Workload classify(String path, String comm, long pid) {
    String name = comm.strip();
    List<String> parts = List.of(path.split("/"));
    String podUid = "";
    for (String p : parts) {
      Matcher m = POD_CGROUPFS.matcher(p);
      if (p.startsWith("pod") && m.matches()) {
        podUid = m.group(1);
      }
      Matcher s = POD_SYSTEMD.matcher(p);
      if (s.matches()) {
        podUid = s.group(1).replace('_', '-');
      }
    }
    for (int i = parts.size() - 1; i >= 0; i--) {
      Matcher m = CONTAINER.matcher(parts.get(i));
      if (m.matches()) {
        String id = m.group(2);
        String runtime = runtime(m.group(1), parts.subList(0, i));
        if (!podUid.isEmpty()) {
          return new Workload(WorkloadKind.POD, "pod " + podUid, "", "", podUid, id, runtime, "", name, pid,
              "cgroup");
        }
        String shortId = id.substring(0, 12);
        return new Workload(WorkloadKind.CONTAINER, runtime.isEmpty() ? shortId : runtime + ":" + shortId, "", "", "",
            id, runtime, "", name, pid, "cgroup");
      }
    }
    if (!podUid.isEmpty()) {
      return new Workload(WorkloadKind.POD, "pod " + podUid, "", "", podUid, "", "", "", name, pid, "cgroup");
    }
    String last = parts.isEmpty() ? "" : parts.get(parts.size() - 1);
    if (last.startsWith("lxc.payload.") && last.length() > "lxc.payload.".length()) {
      String c = last.substring("lxc.payload.".length());
      return new Workload(WorkloadKind.CONTAINER, "lxc:" + c, "", "", "", c, "lxc", "", name, pid, "cgroup");
    }
    if ((last.endsWith(".service") || last.endsWith(".scope")) && !last.equals("init.scope")
        && !SESSION.matcher(last).matches()) {
      return new Workload(WorkloadKind.SERVICE, last, "", "", "", "", "", last, name, pid, "cgroup");
    }
    return new Workload(WorkloadKind.PROCESS, name.isEmpty() ? "pid " + pid : name, "", "", "", "", "", "", name, pid,
        "process");
  }

  private static String runtime(String prefix, List<String> ancestors) {
    if (prefix != null) {
      return switch (prefix) {
        case "docker" -> "docker";
        case "crio" -> "cri-o";
        case "libpod" -> "podman";
        default -> "containerd";
      };
    }
    for (int i = ancestors.size() - 1; i >= 0; i--) {
      String a = ancestors.get(i).toLowerCase(Locale.ROOT);
      if (a.equals("docker") || a.startsWith("docker.") || a.equals("moby")) {
        return "docker";
      }
      if (a.equals("k8s.io") || a.startsWith("containerd")) {
        return "containerd";
      }
      if (a.startsWith("libpod")) {
        return "podman";
      }
      if (a.startsWith("crio")) {
        return "cri-o";
      }
    }
    return "";
  }
}
