package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.deploy.RepoFiles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The systemd unit: the same capabilities as the DaemonSet, sandboxing on, and none of the
 * sandboxing options that would break BPF, kallsyms or namespace discovery.
 */
class SystemdUnitTest {
  private static final String UNIT = "deploy/systemd/segscope.service";

  /** Key → values of the unit's [Service] section (continuation lines joined; comments dropped). */
  static Map<String, List<String>> service() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    String section = "";
    StringBuilder pending = new StringBuilder();
    for (String raw : RepoFiles.text(UNIT).split("\n")) {
      String line = raw.strip();
      if (pending.length() > 0) {
        pending.append(' ').append(line);
        line = pending.toString();
        pending.setLength(0);
      }
      if (line.endsWith("\\")) {
        pending.append(line, 0, line.length() - 1);
        continue;
      }
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[")) {
        section = line;
        continue;
      }
      int eq = line.indexOf('=');
      assertThat(eq).as("%s: '%s' is key=value", UNIT, line).isPositive();
      if (section.equals("[Service]")) {
        out.computeIfAbsent(line.substring(0, eq), k -> new ArrayList<>()).add(line.substring(eq + 1));
      }
    }
    return out;
  }

  private static String one(Map<String, List<String>> s, String key) {
    List<String> v = s.get(key);
    assertThat(v).as("%s [Service] %s=", UNIT, key).isNotNull().hasSize(1);
    return v.get(0);
  }

  @Test
  void holdsExactlyTheCapabilitiesOfTheDaemonSet() {
    Map<String, List<String>> s = service();
    TreeSet<String> expected = new TreeSet<>();
    KubernetesManifestsTest.CAPABILITIES.forEach(c -> expected.add("CAP_" + c));
    assertThat(new TreeSet<>(Arrays.asList(one(s, "CapabilityBoundingSet").split("\\s+")))).isEqualTo(expected);
    assertThat(new TreeSet<>(Arrays.asList(one(s, "AmbientCapabilities").split("\\s+")))).isEqualTo(expected);
  }

  @Test
  void sandboxesWhatTheAgentDoesNotNeed() {
    Map<String, List<String>> s = service();
    assertThat(one(s, "NoNewPrivileges")).isEqualTo("yes");
    assertThat(one(s, "ProtectSystem")).isEqualTo("strict");
    assertThat(one(s, "PrivateTmp")).isEqualTo("yes");
    assertThat(one(s, "ProtectHome")).isEqualTo("yes");
    assertThat(one(s, "RestrictNamespaces")).isEqualTo("net");
    assertThat(one(s, "RestrictAddressFamilies").split("\\s+")).contains("AF_NETLINK", "AF_INET", "AF_INET6",
        "AF_UNIX");
    assertThat(one(s, "SystemCallFilter")).startsWith("~").contains("@mount", "@module");
  }

  @Test
  void leavesOffTheSandboxingThatBreaksTheAgent() {
    Map<String, List<String>> s = service();
    // each of these hides something the agent reads or removes a capability it needs (docs/deploy.md)
    for (String key : List.of("ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs",
        "MemoryDenyWriteExecute", "PrivateNetwork", "PrivateUsers", "DynamicUser")) {
      List<String> v = s.get(key);
      assertThat(v == null || v.equals(List.of("no"))).as("%s=%s", key, v).isTrue();
    }
    assertThat(s.get("ProtectProc")).as("ProtectProc").isIn(null, List.of("default"));
    // the @debug group holds perf_event_open, @privileged holds bpf and setns
    assertThat(one(s, "SystemCallFilter")).doesNotContain("@debug").doesNotContain("@privileged");
  }

  @Test
  void runsTheAgentJar() {
    String exec = one(service(), "ExecStart");
    assertThat(exec).contains("-jar /opt/segscope/segscope.jar run --listen").contains("-Djna.tmpdir=/tmp/");
    // more flags (e.g. --web.config.file) from /etc/default/segscope, split into words, empty by default
    assertThat(exec).endsWith(" $SEGSCOPE_ARGS");
    assertThat(service().get("Environment")).asString().contains("SEGSCOPE_ARGS=");
  }

  @Test
  void systemdAcceptsTheUnit() {
    Tool.Result r = Tool.SYSTEMD_ANALYZE.require().run(RepoFiles.root(), "verify", UNIT);
    assertThat(r.exitCode()).as("systemd-analyze verify said:%n%s", r.output()).isZero();
    assertThat(r.output()).as("systemd-analyze verify findings").isBlank();
  }
}
