package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --advice-accept and --advice-config: what matches, and every bad entry refused with its reason. */
class AdviceIntentTest {
  private static final long ROOT = 4026531840L;
  @TempDir
  Path dir;

  private static Finding finding(String rule, DeviceRef... devices) {
    return new Finding(rule, "warning", devices[0], List.of(devices), "s", Map.of(), List.of(Command.of("true")), 0.1,
        "basis", "high", "risk");
  }

  private static AcceptEntry entry(String text) {
    return AcceptEntry.parse(text, "", "test");
  }

  @Test
  void matchesTheRuleTheNamespaceByNameInodeOrRootAndTheDeviceGlob() {
    DeviceRef calico = new DeviceRef(DeviceId.of(ROOT, 7), "", "vxlan.calico");
    DeviceRef pod = new DeviceRef(DeviceId.of(4026532300L, 2), "lab-snd", "snd0");
    Finding off = finding("offload_disabled", calico);
    assertThat(entry("offload_disabled:*/vxlan.calico").accepts(off, ROOT)).isTrue();
    assertThat(entry("offload_disabled:root/vxlan.*").accepts(off, ROOT)).isTrue();
    assertThat(entry("offload_disabled:" + ROOT + "/vxlan.calic?").accepts(off, ROOT)).isTrue();
    assertThat(entry("*:*/*").accepts(off, ROOT)).isTrue();
    assertThat(entry("gso_size_mismatch:*/vxlan.calico").accepts(off, ROOT)).as("another rule").isFalse();
    assertThat(entry("offload_disabled:lab-*/vxlan.calico").accepts(off, ROOT)).as("another namespace").isFalse();
    assertThat(entry("offload_disabled:*/vxlan").accepts(off, ROOT)).as("the whole name must match").isFalse();
    assertThat(entry("offload_disabled:root/*").accepts(off, 1)).as("root is the host's namespace only").isFalse();
    // any device of the finding: the subject, or one its commands would change
    Finding mismatch = finding("gso_size_mismatch", new DeviceRef(DeviceId.of(4026532301L, 3), "lab-sw", "up0"), pod);
    assertThat(entry("gso_size_mismatch:lab-snd/snd*").accepts(mismatch, ROOT)).isTrue();
    assertThat(entry("gso_size_mismatch:4026532300/{snd0,eth0}").accepts(mismatch, ROOT)).isTrue();
    assertThat(entry("gso_size_mismatch:lab-rcv/*").accepts(mismatch, ROOT)).isFalse();
  }

  @Test
  void hostileDeviceNamesAreMatchedAsDataNeverAsPatterns() {
    for (String name : List.of("$(reboot)", ";poweroff", "a'b", "x*y", "[a", "{a,b}", "a\\xffb", "\\x01\\x02",
        "--help", "-n")) {
      Finding f = finding("offload_disabled", new DeviceRef(DeviceId.of(ROOT, 9), "", name));
      assertThat(entry("offload_disabled:*/*").accepts(f, ROOT)).as(name).isTrue();
      assertThat(entry("offload_disabled:*/eth*").accepts(f, ROOT)).as(name).isFalse();
    }
    // a glob can name one such device exactly, escaping what globs would read
    Finding star = finding("offload_disabled", new DeviceRef(DeviceId.of(ROOT, 9), "", "x*y"));
    Finding other = finding("offload_disabled", new DeviceRef(DeviceId.of(ROOT, 9), "", "xzy"));
    assertThat(entry("offload_disabled:*/x\\*y").accepts(star, ROOT)).isTrue();
    assertThat(entry("offload_disabled:*/x\\*y").accepts(other, ROOT)).isFalse();
  }

  @Test
  void badFlagsAreRefusedWithTheReason() throws Exception {
    String[][] cases = {
        {"nonsense", "expected RULE:NETNS/DEVICE-GLOB"},
        {":*/eth0", "expected RULE:NETNS/DEVICE-GLOB"},
        {"offload_disabled:eth0", "no '/'"},
        {"offload_disabled:/eth0", "may not be empty"},
        {"offload_disabled:*/", "may not be empty"},
        {"no_such_rule:*/eth0", "unknown rule 'no_such_rule'"},
        {"offload_disabled:*/[eth", "is not a glob"},
        {"offload_disabled:*/{a,b", "is not a glob"},
        {"offload_disabled:*/a/b", "holds a '/'"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> AdviceIntent.fromFlags(List.of("offload_disabled:*/ok", c[0]))).as(c[0])
          .isInstanceOf(AdviceIntent.IntentException.class)
          .hasMessageStartingWith("--advice-accept '" + c[0] + "': ").hasMessageContaining(c[1]);
    }
    assertThat(AdviceIntent.fromFlags(List.of("offload_disabled:*/ok", "*:root/eth*"))).extracting(AcceptEntry::text)
        .containsExactly("offload_disabled:*/ok", "*:root/eth*");
  }

  @Test
  void theConfigFileTakesTheFlagFormOrAMapping() throws Exception {
    Path f = dir.resolve("advice.yaml");
    Files.writeString(f, """
        accept:
          - offload_disabled:*/vxlan.calico
          - rule: gso_size_mismatch
            device: "eth*"
            reason: capped on purpose (NIC bug)
          - rule: qdisc_segmentation
            netns: root
            device: "ifb0"
        """);
    List<AcceptEntry> e = AdviceIntent.load(f);
    assertThat(e).extracting(AcceptEntry::text)
        .containsExactly("offload_disabled:*/vxlan.calico", "gso_size_mismatch:*/eth*", "qdisc_segmentation:root/ifb0");
    assertThat(e.get(1).reason()).isEqualTo("capped on purpose (NIC bug)");
    assertThat(e.get(1).source()).isEqualTo(f + ": accept[1]");
    Files.writeString(f, "");
    assertThat(AdviceIntent.load(f)).isEmpty();
    Files.writeString(f, "accept:\n");
    assertThat(AdviceIntent.load(f)).isEmpty();
  }

  @Test
  void aBadConfigFileIsRefusedWithTheReason() throws Exception {
    Path f = dir.resolve("advice.yaml");
    String[][] cases = {
        {"acept: []\n", "unknown field 'acept' (fields: accept)"},
        {"- a\n", "must be a mapping"},
        {"accept: offload_disabled:*/x\n", "accept must be a list"},
        {"accept:\n  - rule: offload_disabled\n", "accept[0]: 'device' is required"},
        {"accept:\n  - rule: offload_disabled\n    device: x\n    devise: y\n", "unknown field 'devise'"},
        {"accept:\n  - rule: nope\n    device: x\n", "unknown rule 'nope'"},
        {"accept:\n  - offload_disabled:*/x\n  - offload_disabled:*/[x\n",
            "accept[1]: the device glob '[x' is not a glob"},
        {"accept:\n  - rule: offload_disabled\n    device: [a, b]\n", "'device' must be a string"},
        {"accept:\n  - 42\n", "an entry is RULE:NETNS/DEVICE-GLOB or a mapping"},
        {"accept: [\n", "parse " + f + ": line"},
        {"accept: []\naccept: []\n", "parse " + f},
        {"accept: !!java.lang.Runtime []\n", "parse " + f},
    };
    for (String[] c : cases) {
      Files.writeString(f, c[0]);
      assertThatThrownBy(() -> AdviceIntent.load(f)).as(c[0]).isInstanceOf(AdviceIntent.IntentException.class)
          .hasMessageContaining(c[1]);
    }
    Files.write(f, new byte[] {'a', 'c', (byte) 0xff, '\n'});
    assertThatThrownBy(() -> AdviceIntent.load(f)).hasMessage("read " + f + ": not UTF-8");
    Files.write(f, "#".repeat(AdviceIntent.MAX_FILE_BYTES + 1).getBytes(StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> AdviceIntent.load(f)).hasMessageContaining("larger than");
    assertThatThrownBy(() -> AdviceIntent.load(dir.resolve("missing.yaml")))
        .hasMessage("read " + dir.resolve("missing.yaml") + ": does not exist");
    // a device would never end (the heap went first: exit 3 before ConfigFile), a directory is no file
    assertThatThrownBy(() -> AdviceIntent.load(Path.of("/dev/zero")))
        .hasMessage("read /dev/zero: is not a regular file");
    assertThatThrownBy(() -> AdviceIntent.load(dir)).hasMessage("read " + dir + ": is not a regular file");
  }

  @Test
  void atMostAThousandEntriesFromTheFlagsTheFileAndBothTogether() throws Exception {
    List<String> flags = new java.util.ArrayList<>();
    for (int i = 0; i < AdviceIntent.MAX_ENTRIES; i++) {
      flags.add("offload_disabled:*/dev" + i);
    }
    assertThat(AdviceIntent.of(flags, null).entries()).hasSize(1000);
    flags.add("offload_disabled:*/one-more");
    assertThatThrownBy(() -> AdviceIntent.of(flags, null)).isInstanceOf(AdviceIntent.IntentException.class)
        .hasMessage("--advice-accept is given 1001 times: the bound is 1000");

    Path f = dir.resolve("advice.yaml");
    StringBuilder yaml = new StringBuilder("accept:\n");
    for (int i = 0; i < 1001; i++) {
      yaml.append("  - offload_disabled:*/dev").append(i).append('\n');
    }
    Files.writeString(f, yaml);
    assertThatThrownBy(() -> AdviceIntent.load(f)).isInstanceOf(AdviceIntent.IntentException.class)
        .hasMessage(f + ": accept has 1001 entries: the bound is 1000");

    StringBuilder half = new StringBuilder("accept:\n");
    for (int i = 0; i < 500; i++) {
      half.append("  - offload_disabled:*/file").append(i).append('\n');
    }
    Files.writeString(f, half);
    assertThat(AdviceIntent.of(flags.subList(0, 500), f).entries()).hasSize(1000);
    assertThatThrownBy(() -> AdviceIntent.of(flags.subList(0, 501), f))
        .isInstanceOf(AdviceIntent.IntentException.class)
        .hasMessage("1001 accepted-finding entries in all (--advice-accept and --advice-config " + f
            + "): the bound is 1000");
  }
}
