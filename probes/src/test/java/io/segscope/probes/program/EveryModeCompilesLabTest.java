package io.segscope.probes.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.KernelLayout;
import io.segscope.probes.ProbeMode;
import io.segscope.probes.TracepointAttach;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.compile.BccCompiler;
import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.testkit.Requirement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one program text compiles in every probe mode against this kernel's layout, with the call-site
 * ranges of this kernel: the kprobe and fentry variants too, which this host cannot attach (they run
 * only in the guest kernel, minutes later). Compile only, with libbcc in this JVM: nothing is loaded.
 */
@Tag("lab")
class EveryModeCompilesLabTest {
  @ParameterizedTest(name = "{0} mode")
  @EnumSource(ProbeMode.class)
  void theProgramTextCompilesInEveryMode(ProbeMode mode) throws Exception {
    Requirement.require(Files.isReadable(Path.of("/sys/kernel/btf/vmlinux")), "needs the kernel's BTF");
    Requirement.require(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
        "needs root (kallsyms addresses)");
    KernelLayout layout = KernelLayout.fromBtf(Btf.loadKernel());
    String text = ProgramText.of(CallSites.resolve(Kallsyms.load()));
    List<String> cflags = new ArrayList<>(layout.cflags());
    cflags.add("-DGSO_MODE_" + mode.name() + "=1");
    cflags.add("-DXDP_MODE_" + mode.name() + "=1");
    cflags.add(TracepointAttach.TP_BTF.cflag());
    cflags.add("-DMAX_DEVICES=4096");
    cflags.add("-DMAP_FLAGS=1");
    CompiledObject o = BccCompiler.compile("segscope-" + mode.name().toLowerCase(), text, cflags);
    List<String> names = o.programs().stream().map(CompiledObject.Program::name).toList();
    assertThat(names).as("programs of %s mode", mode).isNotEmpty();
    if (mode == ProbeMode.KPROBE) {
      assertThat(names).contains("kprobe____skb_gso_segment", "kretprobe____skb_gso_segment");
    }
    assertThat(o.programs()).allSatisfy(p -> assertThat(p.code()).as(p.name()).isNotEmpty());
  }
}
