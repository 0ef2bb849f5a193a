package io.segscope.probes.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep of stale tracefs kprobe events on recorded {@code kprobe_events} text (the lines libbcc's
 * {@code create_probe_event} writes, as the kernel lists them) and on a temporary directory standing in
 * for tracefs: this kernel has no kprobes, so there is no real kprobe_events to sweep here.
 */
class StaleKprobeEventsTest {
  /** As the kernel prints them: libbcc entry/return probes (segscope's old names, bcc tools'), and others. */
  static final String RECORDED = String.join("\n",
      "p:kprobes/p_validate_xmit_skb_0_bcc_4242 validate_xmit_skb",
      "r:kprobes/r___skb_gso_segment_1_bcc_4242 __skb_gso_segment",
      "r16:kprobes/r_tcp_sendmsg_bcc_777 tcp_sendmsg",
      "p:kprobes/p_do_sys_openat2_bcc_1 do_sys_openat2+0",
      "p:kprobes/p_validate_xmit_skb_isra_0_0_bcc_31337 validate_xmit_skb.isra.0",
      "p:perf_probe/tcp_sendmsg tcp_sendmsg",
      "p:kprobes/myprobe_bcc_99 vfs_read",
      "p:kprobes/p_vfs_read_bcc_notapid vfs_read",
      "p:kprobes/p_vfs_read_bcc_0 vfs_read",
      "");

  @Test
  void parsesEveryEventLine() {
    var events = StaleKprobeEvents.parse(RECORDED + "garbage line\n\n");
    assertThat(events).hasSize(9);
    assertThat(events.get(0)).isEqualTo(new StaleKprobeEvents.Event("kprobes", "p_validate_xmit_skb_0_bcc_4242",
        "validate_xmit_skb"));
    assertThat(events.get(2).name()).isEqualTo("r_tcp_sendmsg_bcc_777");
    assertThat(events.get(5).group()).isEqualTo("perf_probe");
  }

  @Test
  void onlyLibbccNamesOfDeadProcessesAreStale() {
    Set<Long> alive = Set.of(1L, 777L);
    var stale = StaleKprobeEvents.stale(StaleKprobeEvents.parse(RECORDED), alive::contains);
    assertThat(stale).extracting(StaleKprobeEvents.Event::name).containsExactly(
        "p_validate_xmit_skb_0_bcc_4242", "r___skb_gso_segment_1_bcc_4242",
        "p_validate_xmit_skb_isra_0_0_bcc_31337");
    // a live PID's events, names not of libbcc's form, another tool's group, PID 0 and non-numbers stay
  }

  @Test
  void sweepAppendsOneRemovalPerStaleEventAndNeverTruncates(@TempDir Path tracefs) throws Exception {
    Path file = tracefs.resolve("kprobe_events");
    Files.writeString(file, RECORDED);
    var result = StaleKprobeEvents.sweep(tracefs, Set.of(1L, 777L)::contains);
    assertThat(result.kept()).isEmpty();
    assertThat(result.removed()).hasSize(3);
    // a regular file records what was written: the original text is intact (opened with O_APPEND, no
    // O_TRUNC, which on tracefs would remove every kprobe event of the host), then the three commands
    assertThat(Files.readString(file, StandardCharsets.ISO_8859_1)).isEqualTo(RECORDED
        + "-:kprobes/p_validate_xmit_skb_0_bcc_4242\n"
        + "-:kprobes/r___skb_gso_segment_1_bcc_4242\n"
        + "-:kprobes/p_validate_xmit_skb_isra_0_0_bcc_31337\n");
  }

  @Test
  void nothingStaleWritesNothing(@TempDir Path tracefs) throws Exception {
    Path file = tracefs.resolve("kprobe_events");
    Files.writeString(file, "p:kprobes/p_vfs_read_bcc_1 vfs_read\n");
    var result = StaleKprobeEvents.sweep(tracefs, pid -> true);
    assertThat(result.removed()).isEmpty();
    assertThat(result.kept()).isEmpty();
    assertThat(Files.readString(file)).isEqualTo("p:kprobes/p_vfs_read_bcc_1 vfs_read\n");
  }

  @Test
  void aKernelWithoutKprobeEventsIsANoOp(@TempDir Path tracefs) throws Exception {
    var result = StaleKprobeEvents.sweep(tracefs, pid -> false);
    assertThat(result.removed()).isEmpty();
    assertThat(result.kept()).isEmpty();
    assertThat(tracefs.resolve("kprobe_events")).doesNotExist();
    try (var s = Files.list(tracefs)) {
      assertThat(s).as("nothing created").isEmpty();
    }
  }

  @Test
  void anUnreadableFileIsReportedNotThrown(@TempDir Path tracefs) throws Exception {
    Files.createDirectory(tracefs.resolve("kprobe_events")); // reading a directory fails
    var result = StaleKprobeEvents.sweep(tracefs, pid -> false);
    assertThat(result.removed()).isEmpty();
    assertThat(result.kept()).singleElement().asString().startsWith("read " + tracefs.resolve("kprobe_events"));
  }

  @Test
  void thisMachinesTracefs() throws Exception {
    Path file = Path.of("/sys/kernel/tracing/kprobe_events");
    if (!Files.exists(file)) {
      // this kernel has no kprobes: the sweep the agent runs at start does nothing and writes nothing
      var result = StaleKprobeEvents.sweep(file.getParent(), StaleKprobeEvents::processAlive);
      assertThat(result.removed()).isEmpty();
      assertThat(result.kept()).isEmpty();
      assertThat(file).doesNotExist();
      return;
    }
    // a kernel with kprobes: judge the real events without touching them (the host's are not ours)
    var events = StaleKprobeEvents.parse(Files.readString(file, StandardCharsets.ISO_8859_1));
    assertThat(StaleKprobeEvents.stale(events, StaleKprobeEvents::processAlive))
        .allSatisfy(e -> assertThat(StaleKprobeEvents.processAlive(e.libbccPid().orElseThrow())).isFalse());
  }
}
