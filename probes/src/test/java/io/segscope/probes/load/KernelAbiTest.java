package io.segscope.probes.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.btf.Btf;
import io.segscope.testkit.Await;
import io.segscope.testkit.Requirement;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** KernelAbi against this kernel's BTF: what a long-lived session keeps is the ids, not the BTF. */
class KernelAbiTest {
  private static Btf kernelBtf() throws Exception {
    Requirement.require(Files.isReadable(Path.of("/sys/kernel/btf/vmlinux")), "kernel BTF at /sys/kernel/btf/vmlinux");
    return Btf.loadKernel();
  }

  @Test
  void theResolvedIdsAreTheOnesTheWholeBtfGives() throws Exception {
    Btf btf = kernelBtf();
    KernelAbi whole = KernelAbi.of(btf);
    KernelAbi kept = KernelAbi.resolving(btf, List.of("consume_skb", "net_dev_queue", "no_such_event_xyz"),
        List.of("__skb_gso_segment", "no_such_function_xyz"));
    assertThat(kept.tracepointBtfId("consume_skb")).isEqualTo(whole.tracepointBtfId("consume_skb")).isPresent();
    assertThat(kept.tracepointBtfId("net_dev_queue")).isEqualTo(whole.tracepointBtfId("net_dev_queue")).isPresent();
    assertThat(kept.functionBtfId("__skb_gso_segment")).isEqualTo(whole.functionBtfId("__skb_gso_segment"));
    assertThat(kept.tracepointBtfId("no_such_event_xyz")).as("asked for, absent in this kernel").isEmpty();
    assertThat(kept.functionBtfId("no_such_function_xyz")).isEmpty();
    assertThat(kept.progTypeTracing).isEqualTo(whole.progTypeTracing);
    assertThat(kept.attachTraceRawTp).isEqualTo(whole.attachTraceRawTp);
  }

  @Test
  void anIdNotResolvedAtTheStartIsAProgrammingErrorNotAnAbsentTracepoint() throws Exception {
    KernelAbi kept = KernelAbi.resolving(kernelBtf(), List.of("consume_skb"), List.of());
    assertThatThrownBy(() -> kept.tracepointBtfId("kfree_skb")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kfree_skb").hasMessageContaining("consume_skb");
    assertThatThrownBy(() -> kept.functionBtfId("__skb_gso_segment")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theResolvingAbiDoesNotKeepTheParsedBtf() throws Exception {
    Btf btf = kernelBtf();
    WeakReference<Btf> ref = new WeakReference<>(btf);
    KernelAbi kept = KernelAbi.resolving(btf, List.of("consume_skb"), List.of("__skb_gso_segment"));
    btf = null;
    Await.atMost(Duration.ofSeconds(1)).every(Duration.ofMillis(20)).until(() -> {
      System.gc();
      return ref.get() == null;
    });
    assertThat(ref.get()).as("the BTF is collectable while the abi lives").isNull();
    assertThat(kept.tracepointBtfId("consume_skb")).isPresent();
  }
}
