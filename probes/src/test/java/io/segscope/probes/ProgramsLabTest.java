package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.bcc.BpfModule;
import io.segscope.probes.bcc.ProgramType;
import io.segscope.probes.btf.Btf;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The BPF C text in every mode against the running kernel: compiles with this kernel's BTF layout,
 * and the programs this kernel can load pass its verifier (kprobe-type programs load even where
 * kprobes cannot be attached; fentry programs are refused here, so the guest tests cover them).
 */
@Tag("lab")
class ProgramsLabTest {

  @Test
  void everyModeCompilesAndItsKprobeAndTracepointProgramsPassTheVerifier() throws Exception {
    Assumptions.assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
        "loading programs needs root");
    List<String> layout = KernelLayout.fromBtf(Btf.loadKernel()).cflags();
    for (ProbeMode mode : ProbeMode.values()) {
      List<String> flags = new ArrayList<>(layout);
      flags.add("-DGSO_MODE_" + mode.name() + "=1");
      flags.add("-DXDP_MODE_" + mode.name() + "=1");
      if (mode == ProbeMode.TRACEPOINT) {
        flags.addAll(ProbeSession.validateXmitSkbRanges());
      }
      try (BpfModule module = BpfModule.compile("segscope-" + mode.label(), ProbeSession.programText(), flags)) {
        for (MeasuredPath path : MeasuredPath.values()) {
          for (ProgramSpec s : ProgramSpec.of(path, mode)) {
            switch (s.kind()) {
              case KPROBE, KRETPROBE -> assertThat(module.load(s.function(), ProgramType.KPROBE)).isPositive();
              case TRACEPOINT -> assertThat(module.load(s.function(), ProgramType.TRACEPOINT)).isPositive();
              case FENTRY, FEXIT -> assertThat(module.functionNames()).contains(s.function());
            }
          }
        }
      }
    }
  }
}
