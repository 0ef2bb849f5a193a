package io.segscope.probes.load;

import io.segscope.host.sys.Errno;
import io.segscope.host.sys.SysException;
import io.segscope.probes.sys.Bpf;
import io.segscope.probes.sys.PerfEvent;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Loads one program's instructions for an {@link AttachPoint} and attaches it. Stateless: callers own
 * the fds ({@link LoadedObject} keeps programs, {@link Attachment} attachments).
 */
public final class Programs {
  /** {@code r0 = 0; exit}: the empty program feature probes load. */
  static final byte[] EMPTY = {
      (byte) 0xb7, 0, 0, 0, 0, 0, 0, 0,
      (byte) 0x95, 0, 0, 0, 0, 0, 0, 0
  };

  private Programs() {}

  /**
   * Loads {@code code} as the program type {@code point} needs.
   *
   * @throws SysException "bpf BPF_PROG_LOAD NAME: ERRNO; verifier: ..." (the whole log in {@link SysException#log()}),
   *     or ENOENT when the kernel has no BTF id for a BTF-typed target
   */
  public static int load(KernelAbi abi, String name, byte[] code, String license, int kernelVersion,
      AttachPoint point) throws SysException {
    int type;
    int expected = 0;
    int btfId = 0;
    if (point instanceof AttachPoint.TpBtf t) {
      type = abi.progTypeTracing;
      expected = abi.attachTraceRawTp;
      btfId = require(abi.tracepointBtfId(t.event()), name, "btf_trace_" + t.event() + " is not in the kernel's BTF");
    } else if (point instanceof AttachPoint.RawTp) {
      type = abi.progTypeRawTracepoint;
    } else if (point instanceof AttachPoint.Tracepoint) {
      type = abi.progTypeTracepoint;
    } else if (point instanceof AttachPoint.Kprobe) {
      type = abi.progTypeKprobe;
    } else {
      AttachPoint.Fentry f = (AttachPoint.Fentry) point;
      type = abi.progTypeTracing;
      expected = f.exit() ? abi.attachTraceFexit : abi.attachTraceFentry;
      btfId = require(abi.functionBtfId(f.function()), name, f.function() + " has no BTF FUNC in the kernel's BTF");
    }
    byte[] relocated = Kfuncs.relocate(code, abi.rdonlyCast, name);
    return Bpf.progLoad(new Bpf.ProgramLoad(name, type, relocated, license, kernelVersion, expected, btfId));
  }

  private static int require(OptionalInt id, String name, String why) throws SysException {
    if (id.isEmpty()) {
      throw new SysException("bpf BPF_PROG_LOAD " + name, Errno.ENOENT, why);
    }
    return id.getAsInt();
  }

  /** Attaches loaded program {@code progFd} at {@code point}; the attachment's fd detaches it when closed. */
  public static Attachment attach(String program, int progFd, AttachPoint point, Path tracefs) throws SysException {
    int fd;
    if (point instanceof AttachPoint.TpBtf || point instanceof AttachPoint.Fentry) {
      fd = Bpf.rawTracepointOpen(null, progFd, point.describe());
    } else if (point instanceof AttachPoint.RawTp r) {
      fd = Bpf.rawTracepointOpen(r.event(), progFd, point.describe());
    } else if (point instanceof AttachPoint.Tracepoint t) {
      fd = PerfEvent.attachTracepoint(PerfEvent.tracepointId(tracefs, t.category(), t.event()), progFd,
          point.describe());
    } else {
      AttachPoint.Kprobe k = (AttachPoint.Kprobe) point;
      fd = PerfEvent.attachKprobe(k.function(), k.ret(), progFd);
    }
    return new Attachment(program, point, fd);
  }

  /**
   * Feature probe: loads the empty program for {@code point} and attaches it, then detaches and
   * closes everything. Empty when it worked, else the failure ("bpf BPF_PROG_LOAD ...: Permission
   * denied (errno 1)").
   */
  public static Optional<String> trial(KernelAbi abi, AttachPoint point, Path tracefs) {
    int fd;
    try {
      fd = load(abi, "segscope_trial", EMPTY, "GPL", 0, point);
    } catch (SysException e) {
      return Optional.of(e.getMessage());
    }
    try (Attachment a = attach("segscope_trial", fd, point, tracefs)) {
      return Optional.empty();
    } catch (SysException e) {
      return Optional.of(e.getMessage());
    } finally {
      Bpf.close(fd);
    }
  }
}
