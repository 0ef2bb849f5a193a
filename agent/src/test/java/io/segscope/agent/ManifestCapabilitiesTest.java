package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The DaemonSet's capabilities against what the agent checks at start: with the manifest's set it
 * misses nothing, and without CAP_SYS_ADMIN or CAP_SYSLOG it names the one taken away (ContainerImageIT
 * shows the second in a real container). CAP_BPF and CAP_PERFMON are not named when taken away: the
 * kernel accepts CAP_SYS_ADMIN for bpf() and perf_event_open (bpf_capable, perfmon_capable), so with
 * the manifest's CAP_SYS_ADMIN nothing fails without them.
 */
class ManifestCapabilitiesTest {
  private static final Map<String, Integer> BITS = Map.of("SYS_ADMIN", Privileges.CAP_SYS_ADMIN, "SYSLOG",
      Privileges.CAP_SYSLOG, "PERFMON", Privileges.CAP_PERFMON, "BPF", Privileges.CAP_BPF);

  @SuppressWarnings("unchecked")
  private static List<String> added() throws Exception {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (!Files.isDirectory(root.resolve("deploy/kubernetes"))) {
      root = root.getParent();
    }
    Map<String, Object> ds = (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions()))
        .load(Files.readString(root.resolve("deploy/kubernetes/daemonset.yaml")));
    Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ds.get("spec"))
        .get("template")).get("spec");
    Map<String, Object> c = ((List<Map<String, Object>>) spec.get("containers")).get(0);
    Map<String, Object> caps = (Map<String, Object>) ((Map<String, Object>) c.get("securityContext"))
        .get("capabilities");
    return (List<String>) caps.get("add");
  }

  private static BigInteger set(List<String> names) {
    BigInteger v = BigInteger.ZERO;
    for (String n : names) {
      assertThat(BITS).as("capability %s of the manifest", n).containsKey(n);
      v = v.setBit(BITS.get(n));
    }
    return v;
  }

  @Test
  void theManifestsSetMissesNothingAndEachNeededOneIsNamedWhenTakenAway() throws Exception {
    List<String> caps = added();
    assertThat(Privileges.missing(set(caps))).isEmpty();
    for (String cap : caps) {
      List<String> without = caps.stream().filter(c -> !c.equals(cap)).toList();
      List<String> missing = Privileges.missing(set(without));
      if (cap.equals("BPF") || cap.equals("PERFMON")) {
        assertThat(missing).as("without %s, CAP_SYS_ADMIN still allows it", cap).isEmpty();
      } else {
        assertThat(missing).as("without %s", cap).singleElement().asString().startsWith("CAP_" + cap + " (");
      }
    }
  }
}
