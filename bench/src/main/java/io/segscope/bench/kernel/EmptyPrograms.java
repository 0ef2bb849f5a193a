package io.segscope.bench.kernel;

import io.segscope.host.sys.SysException;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.load.AttachPoint;
import io.segscope.probes.load.Attachment;
import io.segscope.probes.load.KernelAbi;
import io.segscope.probes.load.Programs;
import io.segscope.probes.sys.Bpf;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Empty programs ({@code r0 = 0; exit}) of one attach type on tracepoints, loaded and attached with
 * segscope's own loader (the same bpf(2) calls its programs take): what one run of any program costs on
 * an event (the floor), and how often the kernel fires the event. Closing detaches and unloads them.
 */
public final class EmptyPrograms implements AutoCloseable {
  /** {@code r0 = 0; exit}. */
  static final byte[] EMPTY = {
      (byte) 0xb7, 0, 0, 0, 0, 0, 0, 0,
      (byte) 0x95, 0, 0, 0, 0, 0, 0, 0
  };

  /** One attached empty program. */
  private record Empty(String event, int fd, Attachment attachment) {}

  private final String attach;
  private final List<Empty> programs;

  private EmptyPrograms(String attach, List<Empty> programs) {
    this.attach = attach;
    this.programs = programs;
  }

  /**
   * Loads and attaches one empty program per event in {@code events}, as {@code attach} (tp_btf, raw_tp
   * or tracepoint). On a failure, what was attached is released and the failure is thrown.
   */
  public static EmptyPrograms attach(List<String> events, String attach) {
    Path tracefs = tracefs();
    KernelAbi abi;
    try {
      abi = KernelAbi.of(attach.equals("tp_btf") ? Btf.loadKernel() : null);
    } catch (BtfException e) {
      throw new IllegalStateException("load the kernel's BTF for empty tp_btf programs: " + e.getMessage(), e);
    }
    List<Empty> out = new ArrayList<>();
    EmptyPrograms result = new EmptyPrograms(attach, out);
    try {
      for (String event : events) {
        AttachPoint point = point(attach, event, tracefs);
        int fd = Programs.load(abi, "bench_empty", EMPTY, "GPL", 0, point);
        try {
          out.add(new Empty(event, fd, Programs.attach("bench_empty", fd, point, tracefs)));
        } catch (SysException e) {
          Bpf.close(fd);
          throw e;
        }
      }
      return result;
    } catch (SysException | RuntimeException e) {
      result.close();
      throw new IllegalStateException("attach empty " + attach + " programs on " + events + ": " + e.getMessage(), e);
    }
  }

  static AttachPoint point(String attach, String event, Path tracefs) {
    return switch (attach) {
      case "tp_btf" -> new AttachPoint.TpBtf(event);
      case "raw_tp" -> new AttachPoint.RawTp(event);
      case "tracepoint" -> new AttachPoint.Tracepoint(category(tracefs, event), event);
      default -> throw new IllegalArgumentException("attach an empty program as " + attach
          + ": expected tp_btf, raw_tp or tracepoint");
    };
  }

  /** The attach type of every program here. */
  public String attachType() {
    return attach;
  }

  /** Per event: {run_time_ns, run_cnt} so far (grow only while bpf_stats is on). */
  public Map<String, long[]> stats() {
    Map<String, long[]> out = new LinkedHashMap<>();
    for (Empty e : programs) {
      try {
        Bpf.ProgramInfo info = Bpf.progInfo(e.fd());
        out.put(e.event(), new long[] {info.runTimeNanos(), info.runCount()});
      } catch (SysException ex) {
        throw new IllegalStateException("read run statistics of the empty program on " + e.event() + ": "
            + ex.getMessage(), ex);
      }
    }
    return out;
  }

  @Override
  public void close() {
    for (Empty e : programs) {
      e.attachment().close();
      Bpf.close(e.fd());
    }
    programs.clear();
  }

  private static Path tracefs() {
    for (Path p : List.of(Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing"))) {
      if (Files.isDirectory(p.resolve("events"))) {
        return p;
      }
    }
    return Path.of("/sys/kernel/tracing");
  }

  /** The tracefs category (subsystem) of {@code event}, e.g. net for net_dev_queue. */
  private static String category(Path tracefs, String event) {
    try (DirectoryStream<Path> cats = Files.newDirectoryStream(tracefs.resolve("events"), Files::isDirectory)) {
      for (Path c : cats) {
        if (Files.isDirectory(c.resolve(event))) {
          return c.getFileName().toString();
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("list " + tracefs.resolve("events") + ": " + e.getMessage(), e);
    }
    throw new IllegalStateException("find tracepoint " + event + " under " + tracefs.resolve("events") + ": absent");
  }
}
