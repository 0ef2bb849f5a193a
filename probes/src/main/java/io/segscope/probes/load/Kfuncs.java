package io.segscope.probes.load;

import io.segscope.host.sys.Errno;
import io.segscope.host.sys.SysException;
import java.util.OptionalInt;

/**
 * Kernel function calls in programs BCC compiled. libbcc 0.26 cannot emit a kfunc call, so the programs
 * call a placeholder helper number ({@link #RDONLY_CAST_PLACEHOLDER}, passed to them as
 * {@code -DSEG_KFUNC_RDONLY_CAST} where the kernel has the kfunc: {@code KernelLayout}); before the load
 * each such call becomes a call of the kfunc by its BTF id ({@code src_reg = BPF_PSEUDO_KFUNC_CALL},
 * {@code imm} = the FUNC's id in vmlinux BTF), which the verifier checks and, for
 * {@code bpf_rdonly_cast}, inlines to a register move.
 */
public final class Kfuncs {
  /** The kfunc the programs use: a read-only, BTF-typed view of a kernel pointer (6.2+). */
  public static final String RDONLY_CAST = "bpf_rdonly_cast";
  /** The helper number the programs call for it: no helper has it (helpers are numbered below 1,000). */
  public static final int RDONLY_CAST_PLACEHOLDER = 0x5e9c0c01;

  private static final int CALL = 0x85; // BPF_JMP | BPF_CALL
  private static final int PSEUDO_KFUNC_CALL = 2;

  private Kfuncs() {}

  /**
   * {@code code} with every call of the placeholder turned into a call of {@code bpf_rdonly_cast}
   * ({@code kfuncId}); {@code code} itself when it has none.
   *
   * @throws SysException ENOENT when it has one and the kernel has no such kfunc
   */
  public static byte[] relocate(byte[] code, OptionalInt kfuncId, String program) throws SysException {
    byte[] out = null;
    for (int at = 0; at + 8 <= code.length; at += 8) {
      if ((code[at] & 0xff) != CALL || (code[at + 1] & 0xf0) != 0 || imm(code, at) != RDONLY_CAST_PLACEHOLDER) {
        continue;
      }
      if (kfuncId.isEmpty()) {
        throw new SysException("bpf BPF_PROG_LOAD " + program, Errno.ENOENT,
            "it calls " + RDONLY_CAST + ", which is not in the kernel's BTF");
      }
      if (out == null) {
        out = code.clone();
      }
      out[at + 1] = (byte) ((PSEUDO_KFUNC_CALL << 4) | (code[at + 1] & 0x0f));
      int id = kfuncId.getAsInt();
      out[at + 4] = (byte) id;
      out[at + 5] = (byte) (id >>> 8);
      out[at + 6] = (byte) (id >>> 16);
      out[at + 7] = (byte) (id >>> 24);
    }
    return out == null ? code : out;
  }

  /** The little-endian imm of the instruction at byte {@code at} (BPF bytecode is in host order: x86-64, arm64). */
  private static int imm(byte[] code, int at) {
    return (code[at + 4] & 0xff) | (code[at + 5] & 0xff) << 8 | (code[at + 6] & 0xff) << 16
        | (code[at + 7] & 0xff) << 24;
  }
}
