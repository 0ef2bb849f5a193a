package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.workload.CriEndpoints;
import io.segscope.testkit.deploy.RepoFiles;
import io.segscope.testkit.deploy.Tree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests, checked at schema level and held to the documented, minimal
 * privileges: the exact capability set, no privileged mode, only the documented host paths,
 * read-only root filesystem, probes, resources.
 */
class KubernetesManifestsTest {
  private static final String DIR = "deploy/kubernetes";
  /** The capabilities docs/deploy.md justifies, and no other. */
  static final Set<String> CAPABILITIES = Set.of("BPF", "PERFMON", "SYS_ADMIN", "SYSLOG");
  /** Host paths (mount path = host path) docs/deploy.md justifies, and whether they may be written. */
  static final Map<String, Boolean> HOST_PATHS = Map.of("/sys/kernel/tracing", false, "/lib/modules", false,
      "/usr/src", false, "/run/netns", false, "/run/containerd/containerd.sock", false);
  private static final Map<String, String> POD_LABELS = Map.of("app.kubernetes.io/name", "segscope",
      "app.kubernetes.io/component", "agent");
  private static final int PORT = 9810;

  /** Every document of every manifest, by kind (each kind appears once). */
  private static Map<String, Map<String, Object>> byKind() {
    Map<String, Map<String, Object>> out = new HashMap<>();
    for (Path f : RepoFiles.list(DIR, ".yaml")) {
      if (f.getFileName().toString().equals("kustomization.yaml")) {
        continue;
      }
      for (Object doc : RepoFiles.yamlDocuments(f)) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) doc;
        assertThat(out.put(Tree.str(m, "kind"), m)).as("%s: one %s in %s", f, m.get("kind"), DIR).isNull();
      }
    }
    return out;
  }

  private static Map<String, Object> podSpec() {
    return Tree.map(byKind().get("DaemonSet"), "spec.template.spec");
  }

  private static Map<String, Object> container() {
    List<Map<String, Object>> cs = Tree.maps(podSpec(), "containers");
    assertThat(cs).hasSize(1);
    return cs.get(0);
  }

  @Test
  void everyManifestHasItsRequiredFieldsAndLivesInTheSegscopeNamespace() {
    Map<String, Map<String, Object>> kinds = byKind();
    assertThat(kinds.keySet()).containsExactlyInAnyOrder("Namespace", "ServiceAccount", "DaemonSet", "Service",
        "ServiceMonitor", "PrometheusRule");
    Map<String, String> api = Map.of("Namespace", "v1", "ServiceAccount", "v1", "DaemonSet", "apps/v1",
        "Service", "v1", "ServiceMonitor", "monitoring.coreos.com/v1", "PrometheusRule", "monitoring.coreos.com/v1");
    SoftAssertions soft = new SoftAssertions();
    for (Map.Entry<String, Map<String, Object>> e : kinds.entrySet()) {
      Map<String, Object> m = e.getValue();
      soft.assertThat(Tree.str(m, "apiVersion")).as("%s apiVersion", e.getKey()).isEqualTo(api.get(e.getKey()));
      soft.assertThat(Tree.str(m, "metadata.name")).as("%s name", e.getKey()).isEqualTo("segscope");
      if (!e.getKey().equals("Namespace")) {
        soft.assertThat(Tree.str(m, "metadata.namespace")).as("%s namespace", e.getKey()).isEqualTo("segscope");
      }
      soft.assertThat(Tree.map(m, "metadata.labels")).as("%s labels", e.getKey())
          .containsEntry("app.kubernetes.io/name", "segscope");
    }
    soft.assertAll();
  }

  @Test
  void kustomizationListsEveryManifestAndSetsTheImage() {
    Map<String, Object> k = RepoFiles.yaml(DIR + "/kustomization.yaml");
    Set<String> files = new TreeSet<>();
    RepoFiles.list(DIR, ".yaml").forEach(p -> files.add(p.getFileName().toString()));
    files.remove("kustomization.yaml");
    assertThat(new TreeSet<>(Tree.list(k, "resources").stream().map(String::valueOf).toList())).isEqualTo(files);
    Map<String, Object> image = Tree.maps(k, "images").get(0);
    assertThat(Tree.str(image, "name")).isEqualTo(Tree.str(container(), "image"));
  }

  @Test
  void daemonSetUsesTheHostNamespacesItNeedsAndNoToken() {
    Map<String, Object> ds = byKind().get("DaemonSet");
    assertThat(Tree.map(ds, "spec.selector.matchLabels")).isEqualTo(POD_LABELS);
    assertThat(Tree.map(ds, "spec.template.metadata.labels")).containsAllEntriesOf(POD_LABELS);
    Map<String, Object> pod = podSpec();
    assertThat(pod.get("hostNetwork")).isEqualTo(true);
    assertThat(pod.get("hostPID")).isEqualTo(true);
    assertThat(pod.get("hostIPC")).as("hostIPC").isNotEqualTo(true);
    assertThat(pod.get("dnsPolicy")).isEqualTo("ClusterFirstWithHostNet");
    assertThat(pod.get("automountServiceAccountToken")).isEqualTo(false);
    assertThat(pod.get("serviceAccountName")).isEqualTo(Tree.str(byKind().get("ServiceAccount"), "metadata.name"));
    assertThat(Tree.str(pod, "securityContext.seccompProfile.type")).isEqualTo("RuntimeDefault");
  }

  @Test
  void daemonSetIsNodeCriticalAndConfinedByTheRuntimeDefaultAppArmorProfile() {
    Map<String, Object> pod = podSpec();
    assertThat(pod.get("priorityClassName")).isEqualTo("system-node-critical");
    assertThat(Tree.str(pod, "securityContext.appArmorProfile.type")).isEqualTo("RuntimeDefault");
    assertThat(Tree.find(container(), "securityContext.appArmorProfile")).as("no container-level override").isNull();
    // clusters before Kubernetes 1.30 read the annotation; it must say the same as the field
    Map<String, Object> annotations = Tree.map(byKind().get("DaemonSet"), "spec.template.metadata.annotations");
    assertThat(annotations).containsEntry(
        "container.apparmor.security.beta.kubernetes.io/" + Tree.str(container(), "name"),
        "runtime/default");
    assertThat(annotations.keySet().stream().filter(k -> k.contains("apparmor"))).hasSize(1);
    String doc = RepoFiles.text("docs/deploy.md");
    assertThat(doc).contains("system-node-critical").contains("runtime/default").contains("AppArmor");
  }

  @Test
  void containerIsNotPrivilegedAndHoldsExactlyTheDocumentedCapabilities() {
    Map<String, Object> sc = Tree.map(container(), "securityContext");
    assertThat(sc.get("privileged")).isEqualTo(false);
    assertThat(sc.get("readOnlyRootFilesystem")).isEqualTo(true);
    assertThat(Tree.list(sc, "capabilities.drop")).containsExactly("ALL");
    List<Object> add = Tree.list(sc, "capabilities.add");
    assertThat(add).doesNotHaveDuplicates();
    assertThat(new TreeSet<>(add.stream().map(String::valueOf).toList())).isEqualTo(new TreeSet<>(CAPABILITIES));
    // Kubernetes rejects allowPrivilegeEscalation: false next to CAP_SYS_ADMIN (and treats it as true)
    assertThat(sc.get("allowPrivilegeEscalation")).as("allowPrivilegeEscalation").isNull();
    assertThat(Tree.find(podSpec(), "securityContext.privileged")).isNull();
  }

  @Test
  void hostPathsAreExactlyTheDocumentedOnesAndReadOnly() {
    Map<String, Object> pod = podSpec();
    Map<String, Map<String, Object>> volumes = new HashMap<>();
    for (Map<String, Object> v : Tree.maps(pod, "volumes")) {
      volumes.put(Tree.str(v, "name"), v);
    }
    Map<String, Boolean> hostMounts = new HashMap<>();
    Set<String> used = new TreeSet<>();
    Set<String> emptyDirs = new TreeSet<>();
    for (Map<String, Object> m : Tree.maps(container(), "volumeMounts")) {
      String name = Tree.str(m, "name");
      Map<String, Object> v = volumes.get(name);
      assertThat(v).as("volume %s of mount %s", name, m.get("mountPath")).isNotNull();
      used.add(name);
      if (v.containsKey("hostPath")) {
        String host = Tree.str(v, "hostPath.path");
        assertThat(Tree.str(m, "mountPath")).as("host path %s is mounted at the same path", host).isEqualTo(host);
        hostMounts.put(host, Boolean.TRUE.equals(m.get("readOnly")));
      } else {
        assertThat(v).as("volume %s", name).containsKey("emptyDir");
        emptyDirs.add(Tree.str(m, "mountPath"));
      }
    }
    assertThat(used).as("every volume is mounted").isEqualTo(volumes.keySet());
    assertThat(hostMounts.keySet()).isEqualTo(HOST_PATHS.keySet());
    for (Map.Entry<String, Boolean> e : HOST_PATHS.entrySet()) {
      assertThat(hostMounts.get(e.getKey())).as("%s mounted read-only", e.getKey()).isEqualTo(!e.getValue());
    }
    assertThat(emptyDirs).as("writable scratch space on the read-only root, and the compile cache's parent")
        .containsExactlyInAnyOrder("/tmp", "/var/tmp", "/var/cache");
    Map<String, Object> netns = Tree.maps(container(), "volumeMounts").stream()
        .filter(m -> "/run/netns".equals(m.get("mountPath"))).findFirst().orElseThrow();
    assertThat(netns.get("mountPropagation")).as("/run/netns sees namespaces created later")
        .isEqualTo("HostToContainer");
  }

  @Test
  void theCriSocketIsMountedReadOnlyWhereTheAgentLooksForItWithoutAFlag() {
    Map<String, Object> v = Tree.maps(podSpec(), "volumes").stream().filter(x -> "cri-socket".equals(x.get("name")))
        .findFirst().orElseThrow();
    assertThat(Tree.str(v, "hostPath.type")).as("only a socket, never a directory kubelet would create")
        .isEqualTo("Socket");
    Path socket = Path.of(Tree.str(v, "hostPath.path"));
    assertThat(CriEndpoints.DEFAULTS).contains(socket);
    assertThat(Tree.list(container(), "args")).as("the default CRI endpoints are used")
        .doesNotContain("--cri-endpoint");
  }

  @Test
  void probesPortAndListenAddressAgree() {
    Map<String, Object> c = container();
    Map<String, Object> port = Tree.maps(c, "ports").get(0);
    assertThat(port).containsEntry("name", "metrics").containsEntry("containerPort", PORT);
    assertThat(Tree.str(c, "livenessProbe.httpGet.path")).isEqualTo("/healthz");
    assertThat(Tree.str(c, "livenessProbe.httpGet.port")).isEqualTo("metrics");
    assertThat(Tree.str(c, "readinessProbe.httpGet.path")).isEqualTo("/readyz");
    assertThat(Tree.str(c, "readinessProbe.httpGet.port")).isEqualTo("metrics");
    assertThat(Tree.str(c, "startupProbe.httpGet.path")).isEqualTo("/healthz");
    List<Object> args = Tree.list(c, "args");
    assertThat(args.get(0)).isEqualTo("run");
    int listen = args.indexOf("--listen");
    assertThat(listen).isPositive();
    assertThat(String.valueOf(args.get(listen + 1))).endsWith(":" + PORT);
  }

  @Test
  void resourcesAreRequestedAndLimited() {
    Map<String, Object> r = Tree.map(container(), "resources");
    assertThat(Tree.map(r, "requests")).containsEntry("cpu", "100m").containsEntry("memory", "256Mi");
    assertThat(Tree.map(r, "limits")).containsEntry("cpu", "1").containsEntry("memory", "512Mi");
  }

  @Test
  void serviceAndServiceMonitorSelectTheAgentPods() {
    Map<String, Map<String, Object>> kinds = byKind();
    Map<String, Object> svc = kinds.get("Service");
    assertThat(Tree.str(svc, "spec.clusterIP")).isEqualTo("None");
    assertThat(Tree.map(svc, "spec.selector")).isEqualTo(POD_LABELS);
    Map<String, Object> svcPort = Tree.maps(svc, "spec.ports").get(0);
    assertThat(svcPort).containsEntry("name", "metrics").containsEntry("port", PORT).containsEntry("targetPort",
        "metrics");
    Map<String, Object> sm = kinds.get("ServiceMonitor");
    assertThat(Tree.map(svc, "metadata.labels")).containsAllEntriesOf(Tree.map(sm, "spec.selector.matchLabels"));
    assertThat(Tree.list(sm, "spec.namespaceSelector.matchNames")).containsExactly("segscope");
    Map<String, Object> ep = Tree.maps(sm, "spec.endpoints").get(0);
    assertThat(ep).containsEntry("port", "metrics").containsEntry("path", "/metrics");
    // the job label prometheus-operator gives the targets is the Service's name: the rules select job="segscope"
    assertThat(Tree.str(svc, "metadata.name")).isEqualTo("segscope");
    assertThat(sm).doesNotContainKey("jobLabel");
  }

  @Test
  void namespaceAllowsTheHostAccessThePodNeeds() {
    Map<String, Object> labels = Tree.map(byKind().get("Namespace"), "metadata.labels");
    assertThat(labels).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
  }

  @Test
  void everyPrivilegeAndHostPathIsDocumented() {
    String doc = RepoFiles.text("docs/deploy.md");
    List<String> missing = new ArrayList<>();
    for (String cap : CAPABILITIES) {
      if (!doc.contains("CAP_" + cap)) {
        missing.add("CAP_" + cap);
      }
    }
    for (String p : HOST_PATHS.keySet()) {
      if (!doc.contains("`" + p + "`")) {
        missing.add(p);
      }
    }
    for (String word : List.of("ListPodSandbox", "PodSandboxStatus", "/run/crio/crio.sock", "--cri-endpoint",
        "hostNetwork", "hostPID", "readOnlyRootFilesystem", "CAP_NET_ADMIN", "CAP_SYS_PTRACE",
        "allowPrivilegeEscalation", "/sys/kernel/debug", "/sys/fs/bpf", "`/proc`", "`/sys`")) {
      if (!doc.contains(word)) {
        missing.add(word);
      }
    }
    assertThat(missing).as("not explained in docs/deploy.md").isEmpty();
  }
}
