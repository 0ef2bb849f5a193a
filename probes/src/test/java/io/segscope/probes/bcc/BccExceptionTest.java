package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BccExceptionTest {

  @Test
  void errnoMessageReadsCallObjectTextAndNumber() {
    BccException e = new BccException("bcc_func_load", "tracepoint__net__x", 13);
    assertThat(e).hasMessage("bcc_func_load tracepoint__net__x: Permission denied (errno 13)");
    assertThat(e.call()).isEqualTo("bcc_func_load");
    assertThat(e.object()).isEqualTo("tracepoint__net__x");
    assertThat(e.errno()).isEqualTo(13);
    assertThat(e.verifierLog()).isEmpty();
    assertThat(e.diagnostics()).isEmpty();
  }

  @Test
  void reasonFollowsErrnoAndDiagnosticsFollowOnNewLines() {
    BccException e = new BccException("bpf_attach_kprobe", "vfs_read", 2, "program kprobe__vfs_read",
        "", "  open(/sys/kernel/tracing/kprobe_events): No such file or directory\n");
    assertThat(e).hasMessage("bpf_attach_kprobe vfs_read: No such file or directory (errno 2); "
        + "program kprobe__vfs_read\nopen(/sys/kernel/tracing/kprobe_events): No such file or directory");
    assertThat(e.diagnostics()).startsWith("open(");
  }

  @Test
  void withoutErrnoTheReasonIsTheCause() {
    BccException e = new BccException("bpf_module_create_c_from_string", "demo", "compile failed");
    assertThat(e).hasMessage("bpf_module_create_c_from_string demo: compile failed");
    assertThat(e.errno()).isZero();
    assertThat(new BccException("x", "y", 0, "", null, null)).hasMessage("x y: failed");
  }

  @Test
  void carriesTheVerifierLog() {
    BccException e = new BccException("bcc_func_load", "f", 13, "", "0: R1=ctx\nR0 invalid mem access", "");
    assertThat(e.verifierLog()).endsWith("R0 invalid mem access");
    assertThat(e.getMessage()).doesNotContain("R1=ctx");
  }
}
