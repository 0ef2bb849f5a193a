package io.segscope.probes.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.host.sys.SysException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class KfuncsTest {
  /** One instruction: opcode, registers (src << 4 | dst), off, imm, little-endian. */
  private static byte[] insn(int code, int regs, int imm) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).put((byte) code).put((byte) regs).putShort((short) 0)
        .putInt(imm).array();
  }

  private static byte[] program(byte[]... insns) {
    ByteBuffer b = ByteBuffer.allocate(8 * insns.length);
    for (byte[] i : insns) {
      b.put(i);
    }
    return b.array();
  }

  @Test
  void thePlaceholderCallBecomesAKfuncCallByBtfIdAndNothingElseChanges() throws Exception {
    byte[] mov = insn(0xb7, 0x02, 1234); // r2 = 1234
    byte[] helper = insn(0x85, 0x00, 113); // call bpf_probe_read_kernel
    byte[] placeholder = insn(0x85, 0x00, Kfuncs.RDONLY_CAST_PLACEHOLDER);
    byte[] exit = insn(0x95, 0, 0);
    byte[] code = program(mov, placeholder, helper, placeholder, exit);
    byte[] out = Kfuncs.relocate(code, OptionalInt.of(91_234), "p");
    assertThat(out).isEqualTo(program(mov, insn(0x85, 0x20, 91_234), helper, insn(0x85, 0x20, 91_234), exit));
    assertThat(code).as("the input is left alone").isEqualTo(program(mov, placeholder, helper, placeholder, exit));
  }

  @Test
  void codeWithoutThePlaceholderIsLoadedAsItIsEvenWithoutTheKfunc() throws Exception {
    // the same number as an immediate of another instruction, or a call to a BPF-to-BPF function
    // (src_reg 1), is no placeholder
    byte[] code = program(insn(0xb7, 0x01, Kfuncs.RDONLY_CAST_PLACEHOLDER),
        insn(0x85, 0x10, Kfuncs.RDONLY_CAST_PLACEHOLDER), insn(0x95, 0, 0));
    assertThat(Kfuncs.relocate(code, OptionalInt.empty(), "p")).isSameAs(code);
  }

  @Test
  void aPlaceholderOnAKernelWithoutTheKfuncIsAClearLoadError() {
    byte[] code = program(insn(0x85, 0x00, Kfuncs.RDONLY_CAST_PLACEHOLDER), insn(0x95, 0, 0));
    assertThatThrownBy(() -> Kfuncs.relocate(code, OptionalInt.empty(), "tp_btf__consume_skb"))
        .isInstanceOf(SysException.class).hasMessageContaining("tp_btf__consume_skb")
        .hasMessageContaining("bpf_rdonly_cast");
  }
}
