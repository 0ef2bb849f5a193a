package io.segscope.probes;

import io.segscope.probes.bcc.Bcc;
import io.segscope.probes.bcc.BccException;
import io.segscope.probes.bcc.BpfModule;
import io.segscope.probes.bcc.BpfTable;
import io.segscope.probes.bcc.ProgramStats;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.gso.DeviceCounters;
import io.segscope.probes.gso.DeviceStatsDecoder;
import io.segscope.probes.gso.Diagnostic;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The running probes: one BPF module (compiled by libbcc from {@code bpf/common.h} plus each path's
 * program, with the kernel layout from BTF as constants), its attachments and its maps. Closing it
 * detaches everything and releases every file descriptor, once, in one place.
 *
 * <p>Tracepoint mode is the only mode of the TX segmentation path here; the probe plan that picks
 * kprobe/fentry where the kernel allows them builds on this class.
 */
public final class ProbeSession implements AutoCloseable {

  /** The path measured by the TX programs. */
  public static final String PATH_GSO_TX = "gso_tx";

  /** The path measured by the generic-XDP programs. */
  public static final String PATH_XDP_GENERIC = "xdp_generic";

  static final String[][] GSO_TRACEPOINTS = {
    {"net", "net_dev_queue"},
    {"qdisc", "qdisc_dequeue"},
    {"skb", "consume_skb"},
    {"net", "net_dev_start_xmit"},
  };

  private final BpfModule module;
  private final KernelLayout layout;
  private final List<ProbeAttachment> attachments;
  private final DeviceStatsDecoder decoder;
  private final BpfTable stats;
  private final BpfTable diag;
  private final int cpus;
  private volatile boolean closed;

  private ProbeSession(BpfModule module, KernelLayout layout, List<ProbeAttachment> attachments)
      throws BccException {
    this.module = module;
    this.layout = layout;
    this.attachments = List.copyOf(attachments);
    this.cpus = Bcc.possibleCpus();
    this.stats = module.table("dev_stats");
    this.diag = module.table("diag");
    this.decoder = new DeviceStatsDecoder(cpus, stats.keySize(), stats.valueSize());
  }

  /**
   * Compiles and attaches the tracepoint-mode programs.
   *
   * @throws ProbeException naming what failed (BTF, kallsyms, compile, load, attach) and why
   */
  public static ProbeSession openTracepointMode() throws ProbeException {
    try {
      Bcc.requireCompatible();
    } catch (BccException e) {
      throw new ProbeException("check libbcc: " + e.getMessage(), e);
    }
    KernelLayout layout;
    try {
      layout = KernelLayout.fromBtf(Btf.loadKernel());
    } catch (BtfException e) {
      throw new ProbeException("read kernel layout from BTF: " + e.getMessage(), e);
    }
    List<String> cflags = new ArrayList<>(layout.cflags());
    cflags.addAll(validateXmitSkbRanges());
    String text = resource("bpf/common.h") + "\n" + resource("bpf/gso_tracepoint.c") + "\n"
        + resource("bpf/xdp_tracepoint.c");
    BpfModule module;
    try {
      module = BpfModule.compile("segscope", text, cflags);
    } catch (BccException e) {
      throw new ProbeException("compile programs: " + e.getMessage(), e);
    }
    List<ProbeAttachment> attached = new ArrayList<>();
    try {
      for (String[] tp : GSO_TRACEPOINTS) {
        String fn = "tracepoint__" + tp[0] + "__" + tp[1];
        module.attachTracepoint(fn, tp[0], tp[1]);
        attached.add(new ProbeAttachment(PATH_GSO_TX, fn, "tracepoint",
            "tracepoint:" + tp[0] + ":" + tp[1], true, ""));
      }
      module.attachTracepoint("tracepoint__net__netif_receive_skb", "net", "netif_receive_skb");
      attached.add(new ProbeAttachment(PATH_XDP_GENERIC, "tracepoint__net__netif_receive_skb", "tracepoint",
          "tracepoint:net:netif_receive_skb", true, ""));
      return new ProbeSession(module, layout, attached);
    } catch (BccException e) {
      module.close();
      throw new ProbeException("attach " + PATH_GSO_TX + " programs: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      module.close();
      throw e;
    }
  }

  /** -DVXS_START0=..., the address ranges of validate_xmit_skb and its clones. */
  static List<String> validateXmitSkbRanges() throws ProbeException {
    List<Kallsyms.Symbol> syms;
    try {
      syms = Kallsyms.load().functionAndClones("validate_xmit_skb");
    } catch (KallsymsException e) {
      throw new ProbeException("resolve validate_xmit_skb: " + e.getMessage(), e);
    }
    if (syms.isEmpty()) {
      throw new ProbeException("resolve validate_xmit_skb: not in /proc/kallsyms (inlined into its callers on "
          + "this kernel?): tracepoint mode cannot tell where consume_skb ran");
    }
    if (syms.size() > 2) {
      throw new ProbeException("resolve validate_xmit_skb: " + syms.size() + " copies in /proc/kallsyms "
          + syms.stream().map(Kallsyms.Symbol::name).toList() + ", the program handles at most 2");
    }
    List<String> flags = new ArrayList<>();
    for (int i = 0; i < syms.size(); i++) {
      flags.add("-DVXS_START" + i + "=0x" + Long.toHexString(syms.get(i).start()) + "ULL");
      flags.add("-DVXS_END" + i + "=0x" + Long.toHexString(syms.get(i).end()) + "ULL");
    }
    return flags;
  }

  static String resource(String name) {
    try (InputStream in = ProbeSession.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("load program " + name + ": missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("load program " + name, e);
    }
  }

  /** Reads every device's cumulative counters and the diagnostics. Safe to call from any one thread. */
  public ProbeReading read() throws ProbeException {
    ensureOpen();
    try {
      List<DeviceCounters> devices = new ArrayList<>();
      for (BpfTable.Entry e : stats.entries()) {
        devices.add(decoder.decode(e.key(), e.value()));
      }
      Map<Diagnostic, Long> d = new EnumMap<>(Diagnostic.class);
      for (Diagnostic x : Diagnostic.values()) {
        d.put(x, percpuSum(diag, x.ordinal()));
      }
      return new ProbeReading(System.nanoTime(), devices, d);
    } catch (BccException e) {
      throw new ProbeException("read maps: " + e.getMessage(), e);
    }
  }

  private long percpuSum(BpfTable table, int index) throws BccException {
    byte[] key = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(index).array();
    Optional<byte[]> v = table.lookup(key);
    if (v.isEmpty()) {
      return 0;
    }
    ByteBuffer b = ByteBuffer.wrap(v.get()).order(ByteOrder.nativeOrder());
    long sum = 0;
    for (int c = 0; c < cpus; c++) {
      sum += b.getLong(c * table.valueStride());
    }
    return sum;
  }

  /** Drops a vanished device's counters so its series disappear. */
  public void forget(long netns, int ifindex) throws ProbeException {
    ensureOpen();
    byte[] key = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
        .putInt((int) netns).putInt(ifindex).array();
    try {
      stats.delete(key);
    } catch (BccException e) {
      throw new ProbeException("forget device " + netns + "/" + ifindex + ": " + e.getMessage(), e);
    }
  }

  public List<ProbeAttachment> attachments() {
    return closed ? attachments.stream()
        .map(a -> new ProbeAttachment(a.path(), a.program(), a.mode(), a.target(), false, "closed")).toList()
        : attachments;
  }

  /** The running kernel's layout, as the programs were compiled against it. */
  public KernelLayout layout() {
    return layout;
  }

  /** The mode a path's programs run in ({@code tracepoint}, {@code kprobe}, {@code fentry}), "" if none run. */
  public String mode(String path) {
    return attachments.stream().filter(a -> a.path().equals(path) && a.attached()).map(ProbeAttachment::mode)
        .findFirst().orElse("");
  }

  /** In-kernel run time and count per program (non-zero only while kernel.bpf_stats_enabled=1). */
  public List<ProgramStats> programStats() {
    return closed ? List.of() : module.programStats();
  }

  private void ensureOpen() throws ProbeException {
    if (closed) {
      throw new ProbeException("read maps: the probe session is closed");
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      module.close();
    }
  }
}
