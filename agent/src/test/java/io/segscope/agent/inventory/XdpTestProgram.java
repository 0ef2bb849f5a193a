package io.segscope.agent.inventory;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import java.nio.file.Path;

/**
 * Loads the smallest XDP program ("return XDP_PASS") through the bpf(2) syscall and pins it, so
 * that tests can attach it with "ip link set dev X xdpgeneric pinned PATH" (no compiler needed).
 * x86-64 only (syscall number 321).
 */
final class XdpTestProgram {
  private static final long SYS_BPF = 321;
  private static final int BPF_PROG_LOAD = 5;
  private static final int BPF_OBJ_PIN = 6;
  private static final int BPF_PROG_TYPE_XDP = 6;

  private XdpTestProgram() {}

  /** Loads the program and pins it at {@code pin} (under a bpffs mount). */
  static void loadAndPin(Path pin) {
    Memory insns = new Memory(16);
    insns.setLong(0, 0x00000002_000000b7L); // r0 = 2 (XDP_PASS): BPF_ALU64|BPF_MOV|BPF_K, imm 2
    insns.setLong(8, 0x95L);                // exit
    Memory license = new Memory(4);
    license.setString(0, "GPL");
    Memory attr = new Memory(128);
    attr.clear();
    attr.setInt(0, BPF_PROG_TYPE_XDP);
    attr.setInt(4, 2);
    attr.setPointer(8, insns);
    attr.setPointer(16, license);
    attr.setString(48, "sginv_pass");
    int fd = (int) Libc.INSTANCE.syscall(SYS_BPF, (long) BPF_PROG_LOAD, attr, 128L);
    if (fd < 0) {
      throw new IllegalStateException(
          "load XDP test program (BPF_PROG_LOAD): " + Errno.describe(Native.getLastError()));
    }
    try {
      Memory path = new Memory(pin.toString().length() + 1L);
      path.setString(0, pin.toString());
      Memory pinAttr = new Memory(128);
      pinAttr.clear();
      pinAttr.setPointer(0, path);
      pinAttr.setInt(8, fd);
      if (Libc.INSTANCE.syscall(SYS_BPF, (long) BPF_OBJ_PIN, pinAttr, 128L) < 0) {
        throw new IllegalStateException(
            "pin XDP test program at " + pin + ": " + Errno.describe(Native.getLastError()));
      }
    } finally {
      Libc.INSTANCE.close(fd);
    }
  }
}
