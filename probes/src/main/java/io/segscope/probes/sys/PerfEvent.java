package io.segscope.probes.sys;

import com.sun.jna.Memory;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import io.segscope.host.sys.SysException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code perf_event_open(2)} for the two event kinds a BPF program attaches to through perf: a
 * classic tracepoint (by its tracefs id) and a kprobe/kretprobe of the kprobe PMU (no tracefs
 * {@code kprobe_events} entry is ever written, so nothing outlives the process: closing the fd removes
 * the probe). Then {@code PERF_EVENT_IOC_SET_BPF} and {@code PERF_EVENT_IOC_ENABLE}.
 */
public final class PerfEvent {
  static final long SYS_PERF_EVENT_OPEN = 298;
  static final int PERF_TYPE_TRACEPOINT = 2;
  static final long PERF_SAMPLE_RAW = 1L << 10;
  static final long PERF_FLAG_FD_CLOEXEC = 1L << 3;
  /** {@code _IOW('$', 8, __u32)}. */
  static final long IOC_SET_BPF = 0x40042408L;
  /** {@code _IO('$', 0)}. */
  static final long IOC_ENABLE = 0x2400L;
  private static final int ATTR_BYTES = 128;

  /** Where the kprobe PMU describes itself. */
  public static final Path KPROBE_PMU = Path.of("/sys/bus/event_source/devices/kprobe");

  private PerfEvent() {}

  /**
   * Attaches {@code progFd} (a TRACEPOINT program) to the classic tracepoint with tracefs id {@code id};
   * returns the perf event fd (closing it detaches).
   */
  public static int attachTracepoint(int id, int progFd, String what) throws SysException {
    try (Memory attr = attr()) {
      attr.setInt(0, PERF_TYPE_TRACEPOINT);
      attr.setLong(8, id);
      return openAndAttach(attr, progFd, what);
    }
  }

  /**
   * Attaches {@code progFd} (a KPROBE program) at the entry ({@code ret} false) or return of kernel
   * function {@code function} through the kprobe PMU; returns the perf event fd.
   */
  public static int attachKprobe(String function, boolean ret, int progFd) throws SysException {
    String what = (ret ? "kretprobe " : "kprobe ") + function;
    int type = kprobePmuType(what);
    try (Memory attr = attr(); Memory name = new Memory(function.length() + 1L)) {
      byte[] b = function.getBytes(StandardCharsets.US_ASCII);
      name.write(0, b, 0, b.length);
      name.setByte(b.length, (byte) 0);
      attr.setInt(0, type);
      if (ret) {
        attr.setLong(8, 1L << retprobeBit(what));
      }
      attr.setPointer(56, name); // config1 = kprobe_func
      attr.setLong(64, 0); // config2 = probe_offset
      return openAndAttach(attr, progFd, what);
    }
  }

  private static int openAndAttach(Memory attr, int progFd, String what) throws SysException {
    long fd = Libc.INSTANCE.syscall(SYS_PERF_EVENT_OPEN, attr, -1L, 0L, -1L, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      throw new SysException("perf_event_open " + what, Errno.ofFailure(fd), "");
    }
    int perf = (int) fd;
    if (Libc.INSTANCE.ioctl(perf, IOC_SET_BPF, (long) progFd) < 0) {
      int errno = Errno.ofFailure(-1);
      Bpf.close(perf);
      throw new SysException("ioctl PERF_EVENT_IOC_SET_BPF " + what, errno, "");
    }
    if (Libc.INSTANCE.ioctl(perf, IOC_ENABLE, 0L) < 0) {
      int errno = Errno.ofFailure(-1);
      Bpf.close(perf);
      throw new SysException("ioctl PERF_EVENT_IOC_ENABLE " + what, errno, "");
    }
    return perf;
  }

  private static Memory attr() {
    Memory m = new Memory(ATTR_BYTES);
    m.clear();
    m.setInt(4, ATTR_BYTES); // size
    m.setLong(16, 1); // sample_period
    m.setLong(24, PERF_SAMPLE_RAW);
    m.setInt(48, 1); // wakeup_events
    return m;
  }

  /** The kprobe PMU's perf type, or why there is none ("CONFIG_KPROBES is not set"). */
  static int kprobePmuType(String what) throws SysException {
    Path type = KPROBE_PMU.resolve("type");
    try {
      return Integer.parseInt(Files.readString(type, StandardCharsets.US_ASCII).strip());
    } catch (IOException | NumberFormatException e) {
      throw new SysException("perf_event_open " + what, Errno.ENOENT,
          "no kprobe PMU (" + type + " unreadable: the kernel has no CONFIG_KPROBES)");
    }
  }

  /** The config bit that makes a kprobe PMU event a kretprobe ({@code format/retprobe}: "config:0"). */
  static int retprobeBit(String what) throws SysException {
    Path format = KPROBE_PMU.resolve("format").resolve("retprobe");
    try {
      String f = Files.readString(format, StandardCharsets.US_ASCII).strip();
      if (!f.startsWith("config:")) {
        throw new NumberFormatException(f);
      }
      return Integer.parseInt(f.substring("config:".length()));
    } catch (IOException | NumberFormatException e) {
      throw new SysException("perf_event_open " + what, Errno.ENOENT, "cannot read " + format);
    }
  }

  /** A classic tracepoint's tracefs id ({@code events/<category>/<event>/id}). */
  public static int tracepointId(Path tracefs, String category, String event) throws SysException {
    Path id = tracefs.resolve("events").resolve(category).resolve(event).resolve("id");
    try {
      return Integer.parseInt(Files.readString(id, StandardCharsets.US_ASCII).strip());
    } catch (IOException | NumberFormatException e) {
      throw new SysException("read tracepoint id " + category + ":" + event, Errno.ENOENT, "cannot read " + id);
    }
  }
}
