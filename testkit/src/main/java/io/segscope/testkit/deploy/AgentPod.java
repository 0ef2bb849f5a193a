package io.segscope.testkit.deploy;

import io.segscope.lab.containerd.criv1.Capability;
import io.segscope.lab.containerd.criv1.ContainerConfig;
import io.segscope.lab.containerd.criv1.ContainerMetadata;
import io.segscope.lab.containerd.criv1.ImageSpec;
import io.segscope.lab.containerd.criv1.Int64Value;
import io.segscope.lab.containerd.criv1.KeyValue;
import io.segscope.lab.containerd.criv1.LinuxContainerConfig;
import io.segscope.lab.containerd.criv1.LinuxContainerResources;
import io.segscope.lab.containerd.criv1.LinuxContainerSecurityContext;
import io.segscope.lab.containerd.criv1.Mount;
import io.segscope.lab.containerd.criv1.MountPropagation;
import io.segscope.lab.containerd.criv1.SecurityProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's pod of the rendered DaemonSet, read as the kubelet reads it, and the CRI container
 * config the kubelet would make of it ({@link #containerConfig}): the image's ENTRYPOINT kept (no
 * {@code command}), the args with {@code $(VAR)} expanded from the env, the env with its field
 * references resolved, the capabilities, read-only root, user, seccomp profile, every volume mount
 * (hostPath and emptyDir, with its propagation) and the CPU and memory resources in the kubelet's
 * units. What a kubelet adds besides (/etc/hosts, the termination log, the service account token,
 * which this pod does not mount) is not made.
 */
public record AgentPod(Map<String, Object> podSpec, Map<String, Object> container) {
  private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)|\\$\\$");
  /** The kubelet's CFS period (µs). */
  public static final long CPU_PERIOD = 100_000;

  /** A probe's HTTP GET: path, port number, and the kubelet's timing. */
  public record Probe(String path, int port, int periodSeconds, int timeoutSeconds, int failureThreshold) {}

  public static AgentPod of(RenderedManifest manifest) {
    Map<String, Object> spec = Tree.map(manifest.kind("DaemonSet"), "spec.template.spec");
    List<Map<String, Object>> cs = Tree.maps(spec, "containers");
    if (cs.size() != 1) {
      throw new IllegalStateException("the DaemonSet has " + cs.size() + " containers, not one");
    }
    return new AgentPod(spec, cs.get(0));
  }

  public boolean hostNetwork() {
    return Boolean.TRUE.equals(podSpec.get("hostNetwork"));
  }

  public boolean hostPid() {
    return Boolean.TRUE.equals(podSpec.get("hostPID"));
  }

  public long terminationGraceSeconds() {
    Object v = podSpec.get("terminationGracePeriodSeconds");
    return v == null ? 30 : ((Number) v).longValue(); // Kubernetes' default
  }

  public String name() {
    return Tree.str(container, "name");
  }

  public List<String> capabilitiesAdded() {
    return strings(Tree.find(container, "securityContext.capabilities.add"));
  }

  public List<String> capabilitiesDropped() {
    return strings(Tree.find(container, "securityContext.capabilities.drop"));
  }

  /** The env as the kubelet resolves it: values, and field references from {@code fieldRefs}. */
  public Map<String, String> env(Map<String, String> fieldRefs) {
    Map<String, String> out = new LinkedHashMap<>();
    Object env = container.get("env");
    for (Map<String, Object> e : env == null ? List.<Map<String, Object>>of() : Tree.maps(container, "env")) {
      String name = Tree.str(e, "name");
      if (e.containsKey("value")) {
        out.put(name, expand(Tree.str(e, "value"), out));
      } else {
        String field = Tree.str(e, "valueFrom.fieldRef.fieldPath");
        String v = fieldRefs.get(field);
        if (v == null) {
          throw new IllegalStateException("env " + name + ": no value given for the field reference " + field);
        }
        out.put(name, v);
      }
    }
    return out;
  }

  /** The args with {@code $(VAR)} replaced from the env ({@code $$} is a literal $), as the kubelet does. */
  public List<String> args(Map<String, String> env) {
    Object a = container.get("args");
    return strings(a).stream().map(s -> expand(s, env)).toList();
  }

  public static String expand(String s, Map<String, String> env) {
    Matcher m = VAR.matcher(s);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String rep = m.group(1) == null ? "$" : env.getOrDefault(m.group(1), m.group());
      m.appendReplacement(out, Matcher.quoteReplacement(rep));
    }
    return m.appendTail(out).toString();
  }

  /** A named or numbered port of the container. */
  public int port(Object port) {
    if (port instanceof Number n) {
      return n.intValue();
    }
    for (Map<String, Object> p : Tree.maps(container, "ports")) {
      if (String.valueOf(port).equals(p.get("name"))) {
        return ((Number) p.get("containerPort")).intValue();
      }
    }
    throw new IllegalStateException("the container has no port named " + port);
  }

  public Probe probe(String kind) {
    Map<String, Object> p = Tree.map(container, kind);
    return new Probe(Tree.str(p, "httpGet.path"), port(Tree.at(p, "httpGet.port")), intOr(p, "periodSeconds", 10),
        intOr(p, "timeoutSeconds", 1), intOr(p, "failureThreshold", 3));
  }

  /** Kubernetes quantities as the kubelet uses them: CPU in millicores, memory in bytes. */
  public static long milliCpu(String q) {
    return q.endsWith("m") ? Long.parseLong(q.substring(0, q.length() - 1))
        : Math.round(Double.parseDouble(q) * 1000);
  }

  public static long bytes(String q) {
    Matcher m = Pattern.compile("^(\\d+)(Ki|Mi|Gi|K|M|G)?$").matcher(q);
    if (!m.matches()) {
      throw new IllegalArgumentException("memory quantity " + q + " is not parsed here");
    }
    long n = Long.parseLong(m.group(1));
    String u = m.group(2) == null ? "" : m.group(2);
    return n * switch (u) {
      case "Ki" -> 1024L;
      case "Mi" -> 1024L * 1024;
      case "Gi" -> 1024L * 1024 * 1024;
      case "K" -> 1000L;
      case "M" -> 1000L * 1000;
      case "G" -> 1000L * 1000 * 1000;
      default -> 1L;
    };
  }

  /** The kubelet's Linux resources: shares from the CPU request, quota from its limit, the memory limit. */
  public LinuxContainerResources resources() {
    LinuxContainerResources.Builder r = LinuxContainerResources.newBuilder();
    Object req = Tree.find(container, "resources.requests.cpu");
    if (req != null) {
      r.setCpuShares(Math.max(2, milliCpu(String.valueOf(req)) * 1024 / 1000));
    }
    Object lim = Tree.find(container, "resources.limits.cpu");
    if (lim != null) {
      r.setCpuPeriod(CPU_PERIOD).setCpuQuota(milliCpu(String.valueOf(lim)) * CPU_PERIOD / 1000);
    }
    Object mem = Tree.find(container, "resources.limits.memory");
    if (mem != null) {
      r.setMemoryLimitInBytes(bytes(String.valueOf(mem)));
    }
    return r.build();
  }

  /**
   * The CRI config of the container.
   *
   * @param image the image reference the runtime knows
   * @param fieldRefs values of the field references ({@code status.hostIP})
   * @param hostPath where this node keeps a hostPath volume's path (the identity on a real node)
   * @param emptyDir the host directory of an emptyDir volume, by volume name
   * @param extraArgs appended to the manifest's args (none in production)
   */
  public ContainerConfig containerConfig(String image, Map<String, String> fieldRefs, Function<String, String> hostPath,
      Function<String, String> emptyDir, String logPath, List<String> extraArgs) {
    Map<String, String> env = env(fieldRefs);
    List<String> args = new ArrayList<>(args(env));
    args.addAll(extraArgs);
    ContainerConfig.Builder c = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName(name()))
        .setImage(ImageSpec.newBuilder().setImage(image))
        .addAllArgs(args)
        .setLogPath(logPath);
    env.forEach((k, v) -> c.addEnvs(KeyValue.newBuilder().setKey(k).setValue(v)));
    Map<String, Map<String, Object>> volumes = new LinkedHashMap<>();
    for (Map<String, Object> v : Tree.maps(podSpec, "volumes")) {
      volumes.put(Tree.str(v, "name"), v);
    }
    for (Map<String, Object> m : Tree.maps(container, "volumeMounts")) {
      Map<String, Object> v = volumes.get(Tree.str(m, "name"));
      if (v == null) {
        throw new IllegalStateException("volume mount " + m.get("name") + " names no volume of the pod");
      }
      String host;
      if (v.containsKey("hostPath")) {
        host = hostPath.apply(Tree.str(v, "hostPath.path"));
      } else if (v.containsKey("emptyDir")) {
        host = emptyDir.apply(Tree.str(v, "name"));
      } else {
        throw new IllegalStateException("volume " + v.get("name") + ": only hostPath and emptyDir are made here");
      }
      String propagation = m.containsKey("mountPropagation") ? Tree.str(m, "mountPropagation") : "None";
      c.addMounts(Mount.newBuilder().setContainerPath(Tree.str(m, "mountPath")).setHostPath(host)
          .setReadonly(Boolean.TRUE.equals(m.get("readOnly")))
          .setPropagation(switch (propagation) {
            case "HostToContainer" -> MountPropagation.PROPAGATION_HOST_TO_CONTAINER;
            case "Bidirectional" -> MountPropagation.PROPAGATION_BIDIRECTIONAL;
            default -> MountPropagation.PROPAGATION_PRIVATE;
          }));
    }
    LinuxContainerSecurityContext.Builder sc = LinuxContainerSecurityContext.newBuilder()
        .setCapabilities(Capability.newBuilder().addAllAddCapabilities(capabilitiesAdded())
            .addAllDropCapabilities(capabilitiesDropped()))
        .setPrivileged(Boolean.TRUE.equals(Tree.find(container, "securityContext.privileged")))
        .setReadonlyRootfs(Boolean.TRUE.equals(Tree.find(container, "securityContext.readOnlyRootFilesystem")));
    Object uid = Tree.find(container, "securityContext.runAsUser");
    if (uid != null) {
      sc.setRunAsUser(Int64Value.newBuilder().setValue(((Number) uid).longValue()));
    }
    Object gid = Tree.find(container, "securityContext.runAsGroup");
    if (gid != null) {
      sc.setRunAsGroup(Int64Value.newBuilder().setValue(((Number) gid).longValue()));
    }
    if ("RuntimeDefault".equals(Tree.find(podSpec, "securityContext.seccompProfile.type"))) {
      sc.setSeccomp(SecurityProfile.newBuilder().setProfileType(SecurityProfile.ProfileType.RuntimeDefault));
    }
    c.setLinux(LinuxContainerConfig.newBuilder().setResources(resources()).setSecurityContext(sc));
    return c.build();
  }

  private static int intOr(Map<String, Object> m, String key, int dflt) {
    Object v = m.get(key);
    return v == null ? dflt : ((Number) v).intValue();
  }

  private static List<String> strings(Object list) {
    if (list == null) {
      return List.of();
    }
    return ((List<?>) list).stream().map(String::valueOf).toList();
  }
}
