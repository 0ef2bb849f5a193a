package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Pure helpers of the module and tables: event names, kfunc targets, per-CPU layout, batch errnos. */
class NamingTest {

  @Test
  void kprobeEventNamesAreSanitisedUniqueAndShort() {
    assertThat(BpfModule.kprobeEventName("p", "tcp_sendmsg", 7)).isEqualTo("p_tcp_sendmsg_7");
    assertThat(BpfModule.kprobeEventName("r", "validate_xmit_skb.isra.0", 12))
        .isEqualTo("r_validate_xmit_skb_isra_0_12");
    String longName = BpfModule.kprobeEventName("p", "x".repeat(200), 123456789);
    assertThat(longName).hasSizeLessThanOrEqualTo(48).startsWith("p_xxx").endsWith("_123456789");
  }

  @Test
  void kfuncNamesGiveTheirTarget() {
    assertThat(BpfModule.kfuncDescription("kfunc__vfs_read")).isEqualTo("kfunc:vfs_read");
    assertThat(BpfModule.kfuncDescription("kretfunc__do_xdp_generic")).isEqualTo("kretfunc:do_xdp_generic");
    assertThatThrownBy(() -> BpfModule.kfuncDescription("kprobe__vfs_read"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kprobe__vfs_read");
    assertThatThrownBy(() -> BpfModule.kfuncDescription("kfunc__"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void perCpuSlotsAreLeafRoundedUpToEight() {
    assertThat(BpfTable.stride(1)).isEqualTo(8);
    assertThat(BpfTable.stride(8)).isEqualTo(8);
    assertThat(BpfTable.stride(12)).isEqualTo(16);
    assertThat(BpfTable.stride(24)).isEqualTo(24);
  }

  @Test
  void perCpuMapTypes() {
    assertThat(BpfTable.isPerCpuType(5)).isTrue();
    assertThat(BpfTable.isPerCpuType(6)).isTrue();
    assertThat(BpfTable.isPerCpuType(10)).isTrue();
    assertThat(BpfTable.isPerCpuType(1)).isFalse();
    assertThat(BpfTable.isPerCpuType(2)).isFalse();
    assertThat(BpfTable.isPerCpuType(9)).isFalse();
  }

  @Test
  void batchFallbackErrnos() {
    assertThat(BpfTable.isBatchUnsupported(Errno.EINVAL)).isTrue();
    assertThat(BpfTable.isBatchUnsupported(Errno.EOPNOTSUPP)).isTrue();
    assertThat(BpfTable.isBatchUnsupported(Errno.ENOSYS)).isTrue();
    assertThat(BpfTable.isBatchUnsupported(Errno.ENOTSUPP)).isTrue();
    assertThat(BpfTable.isBatchUnsupported(Errno.ENOENT)).isFalse();
    assertThat(BpfTable.isBatchUnsupported(Errno.EPERM)).isFalse();
    assertThat(BpfTable.isBatchUnsupported(Errno.ENOSPC)).isFalse();
  }

  @Test
  void programTypeIdsAreTheUapiNumbers() {
    assertThat(ProgramType.KPROBE.id()).isEqualTo(2);
    assertThat(ProgramType.TRACEPOINT.id()).isEqualTo(5);
    assertThat(ProgramType.XDP.id()).isEqualTo(6);
    assertThat(ProgramType.RAW_TRACEPOINT.id()).isEqualTo(17);
    assertThat(ProgramType.TRACING.id()).isEqualTo(26);
  }

  @Test
  void verifierVerdictIsTheLastTwoMeaningfulLines() {
    String log = "0: R1=ctx() R10=fp0\n8: (79) r6 = *(u64 *)(r0 +32)\n"
        + "invalid access to map value, value_size=8 off=32 size=8\n"
        + "processed 8 insns (limit 1000000) max_states_per_insn 0\n\n";
    assertThat(BpfModule.verdict(log)).isEqualTo("; verifier: 8: (79) r6 = *(u64 *)(r0 +32)"
        + " / invalid access to map value, value_size=8 off=32 size=8");
    assertThat(BpfModule.verdict("")).isEmpty();
    assertThat(BpfModule.verdict("only line")).isEqualTo("; verifier: only line");
  }
}
