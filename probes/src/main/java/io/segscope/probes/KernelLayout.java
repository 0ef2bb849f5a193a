package io.segscope.probes;

import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.btf.FieldOffset;
import io.segscope.probes.load.Kfuncs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The kernel struct layout the BPF programs need, taken from the running kernel's BTF and handed to
 * them as {@code -D} compile-time constants. Kernel headers found by BCC are never trusted for layout:
 * on the development machines they belong to an older kernel.
 *
 * <p>Each required field is checked for the size the programs read; a missing or differently sized
 * field fails with a message naming it, instead of producing wrong numbers.
 */
public final class KernelLayout {

  private final Map<String, Long> defines;

  private KernelLayout(Map<String, Long> defines) {
    this.defines = Map.copyOf(defines);
  }

  /** Resolves every offset the programs use. */
  public static KernelLayout fromBtf(Btf btf) throws BtfException {
    Map<String, Long> d = new LinkedHashMap<>();
    skBuff(btf, d);
    // skb_shared_info
    d.put("OFF_SHINFO_GSO_SIZE", offset(btf, "skb_shared_info.gso_size", 2));
    d.put("OFF_SHINFO_GSO_SEGS", offset(btf, "skb_shared_info.gso_segs", 2));
    d.put("OFF_SHINFO_GSO_TYPE", offset(btf, "skb_shared_info.gso_type", 4));
    d.put("OFF_SHINFO_DATAREF", offset(btf, "skb_shared_info.dataref", 4));
    netDevice(btf, d);
    if (btf.findField("sk_buff.redirected").isPresent()) {
      bitfield(btf, d, "sk_buff.redirected", "SKB_REDIRECTED", "OFF_SKB_REDIRECTED_BYTE");
    }
    // 6.9 moved generic XDP to a page_pool copy and measures headroom after pushing the MAC header;
    // skb_cow_data_for_xdp came with that change (docs/kernel.md, generic XDP); the same series turned
    // do_xdp_generic's skb argument into struct sk_buff **pskb
    boolean pagePoolXdp = btf.hasFunction("skb_cow_data_for_xdp");
    d.put("XDP_HEADROOM_AFTER_MAC_PUSH", pagePoolXdp ? 1L : 0L);
    d.put("XDP_GENERIC_PSKB", pagePoolXdp ? 1L : 0L);
    // struct net: the namespace inode, the key shared with the device inventory
    d.put("OFF_NET_INUM", offset(btf, "net.ns.inum", 4));
    // the namespace cookie (5.8+, a u64 since 5.12): never reused while the host runs, so a
    // namespace created after another was deleted can never inherit its counters through a reused inode
    Optional<FieldOffset> cookie = btf.findField("net.net_cookie");
    if (cookie.isPresent() && cookie.get().byteSize() == 8 && !cookie.get().isBitfield()) {
      d.put("OFF_NET_COOKIE", cookie.get().byteOffset());
    }
    // skb_shared_info.gso_type bits, by name (SKB_GSO_* enumerators)
    for (String bit : GSO_TYPE_BITS) {
      d.put("SEG_GSO_" + bit, btf.findEnumValue("SKB_GSO_" + bit).orElse(0));
    }
    // netdev feature bits: never hard-coded, they move between kernels
    d.put("NETIF_F_GSO_SHIFT", btf.enumValue("NETIF_F_GSO_SHIFT"));
    d.put("NETIF_F_GSO_LAST", btf.enumValue("NETIF_F_GSO_LAST"));
    spans(btf, d);
    rdonlyCast(btf, d);
    return new KernelLayout(d);
  }

  /** The sk_buff fields the programs read (sk_buff.end is an offset or a pointer, by its size). */
  private static void skBuff(Btf btf, Map<String, Long> d) throws BtfException {
    d.put("OFF_SKB_NEXT", offset(btf, "sk_buff.next", 8));
    d.put("OFF_SKB_DEV", offset(btf, "sk_buff.dev", 8));
    d.put("OFF_SKB_HEAD", offset(btf, "sk_buff.head", 8));
    FieldOffset end = btf.field("sk_buff.end");
    if (end.byteSize() != 4 && end.byteSize() != 8) {
      throw new BtfException("resolve sk_buff.end: unexpected size " + end.byteSize());
    }
    d.put("OFF_SKB_END", end.byteOffset());
    d.put("SKB_END_IS_OFFSET", end.byteSize() == 4 ? 1L : 0L);
    d.put("OFF_SKB_LEN", offset(btf, "sk_buff.len", 4));
    d.put("OFF_SKB_DATA_LEN", offset(btf, "sk_buff.data_len", 4));
    d.put("OFF_SKB_DATA", offset(btf, "sk_buff.data", 8));
    d.put("OFF_SKB_MAC_HEADER", offset(btf, "sk_buff.mac_header", 2));
    // read only for skbs without gso_segs (virtio-net headers), to count their segments from the headers
    d.put("OFF_SKB_TRANSPORT_HEADER", offset(btf, "sk_buff.transport_header", 2));
    d.put("OFF_SKB_PROTOCOL", offset(btf, "sk_buff.protocol", 2));
    bitfield(btf, d, "sk_buff.ip_summed", "SKB_IP_SUMMED", "OFF_SKB_IP_SUMMED_BYTE");
    bitfield(btf, d, "sk_buff.encapsulation", "SKB_ENCAP", "OFF_SKB_ENCAP_BYTE");
    bitfield(btf, d, "sk_buff.cloned", "SKB_CLONED", "OFF_SKB_CLONED_BYTE");
  }

  /** The net_device fields the programs read (gso_ipv4_max_size where the kernel has it, 6.3+). */
  private static void netDevice(Btf btf, Map<String, Long> d) throws BtfException {
    d.put("OFF_DEV_IFINDEX", offset(btf, "net_device.ifindex", 4));
    d.put("OFF_DEV_NAME", offset(btf, "net_device.name", 16));
    d.put("OFF_DEV_ND_NET", offset(btf, "net_device.nd_net.net", 8));
    d.put("OFF_DEV_FEATURES", offset(btf, "net_device.features", 8));
    d.put("OFF_DEV_HW_ENC_FEATURES", offset(btf, "net_device.hw_enc_features", 8));
    d.put("OFF_DEV_GSO_MAX_SIZE", offset(btf, "net_device.gso_max_size", 4));
    d.put("OFF_DEV_GSO_MAX_SEGS", offset(btf, "net_device.gso_max_segs", 2));
    Optional<FieldOffset> ipv4 = btf.findField("net_device.gso_ipv4_max_size");
    if (ipv4.isPresent()) {
      checkSize(ipv4.get(), 4);
      d.put("OFF_DEV_GSO_IPV4_MAX_SIZE", ipv4.get().byteOffset());
    }
    d.put("OFF_DEV_XDP_PROG", offset(btf, "net_device.xdp_prog", 8));
    d.put("OFF_DEV_MTU", offset(btf, "net_device.mtu", 4));
  }

  /**
   * Where the kernel has the kfunc {@code bpf_rdonly_cast} (6.2+; a feature found in BTF, not a version
   * check): the BTF id of {@code struct skb_shared_info} and the placeholder the programs call, which
   * the loader turns into the kfunc call ({@link io.segscope.probes.load.Kfuncs}). BTF-typed programs then
   * read a skb's GSO fields with plain loads, which the verifier checks against BTF, instead of a probe
   * read (~20 ns). Absent: the programs keep the probe read.
   */
  private static void rdonlyCast(Btf btf, Map<String, Long> d) {
    OptionalInt shinfo = btf.structId("skb_shared_info");
    if (btf.hasFunction(Kfuncs.RDONLY_CAST) && shinfo.isPresent()) {
      d.put("BTF_ID_SKB_SHARED_INFO", (long) shinfo.getAsInt());
      d.put("SEG_KFUNC_RDONLY_CAST", (long) Kfuncs.RDONLY_CAST_PLACEHOLDER);
    }
  }

  /** The SKB_GSO_* bits the programs classify (absent ones are 0: never set). */
  static final List<String> GSO_TYPE_BITS = List.of("TCPV4", "TCPV6", "UDP_L4", "UDP_TUNNEL",
      "UDP_TUNNEL_CSUM", "GRE", "GRE_CSUM", "IPXIP4", "IPXIP6", "FRAGLIST", "TUNNEL_REMCSUM");

  /** Largest sk_buff / net_device byte range the programs copy in one read (BPF stack is 512 bytes). */
  static final long MAX_SKB_SPAN = 256;
  static final long MAX_DEV_SPAN = 288;

  /**
   * One bulk read instead of many single ones (each bpf_probe_read_kernel call costs ~20-40 ns): the
   * byte range of sk_buff holding every field the programs read from it, and the same for
   * net_device, when they lie close enough together. SKB_SPAN_* / DEV_SPAN_* are left undefined
   * when they don't (e.g. net_device before 6.8 keeps nd_net far from gso_max_size): the programs
   * then read field by field. SHINFO_SPAN_LEN covers gso_size, gso_segs and gso_type.
   */
  private static void spans(Btf btf, Map<String, Long> d) throws BtfException {
    long[] skb = range(btf, "sk_buff", "dev", "data_len", "protocol", "mac_header", "end", "head", "data",
        "len");
    for (String m : new String[] {"OFF_SKB_IP_SUMMED_BYTE", "OFF_SKB_ENCAP_BYTE", "OFF_SKB_CLONED_BYTE",
        "OFF_SKB_REDIRECTED_BYTE"}) {
      if (d.containsKey(m)) {
        skb[0] = Math.min(skb[0], d.get(m));
        skb[1] = Math.max(skb[1], d.get(m) + 1);
      }
    }
    skb[0] &= ~7L; // keep 8-byte fields 8-byte aligned inside the copy
    if (skb[1] - skb[0] <= MAX_SKB_SPAN) {
      d.put("SKB_SPAN_START", skb[0]);
      d.put("SKB_SPAN_LEN", skb[1] - skb[0]);
    }
    List<String> devFields = new ArrayList<>(List.of("gso_max_size", "gso_max_segs", "features", "ifindex",
        "nd_net", "mtu", "xdp_prog"));
    if (btf.findField("net_device.gso_ipv4_max_size").isPresent()) {
      devFields.add("gso_ipv4_max_size");
    }
    long[] dev = range(btf, "net_device", devFields.toArray(String[]::new));
    dev[0] &= ~7L;
    if (dev[1] - dev[0] <= MAX_DEV_SPAN) {
      d.put("DEV_SPAN_START", dev[0]);
      d.put("DEV_SPAN_LEN", dev[1] - dev[0]);
    }
    long[] shinfo = range(btf, "skb_shared_info", "gso_size", "gso_segs", "gso_type");
    d.put("SHINFO_SPAN_LEN", shinfo[1]);
  }

  /** [lowest start, highest end) in bytes of the named members. */
  private static long[] range(Btf btf, String struct, String... members) throws BtfException {
    long lo = Long.MAX_VALUE;
    long hi = 0;
    for (String m : members) {
      FieldOffset f = btf.field(struct + "." + m);
      lo = Math.min(lo, f.byteOffset());
      hi = Math.max(hi, f.byteOffset() + f.byteSize());
    }
    return new long[] {lo, hi};
  }

  private static long offset(Btf btf, String path, long expectedSize) throws BtfException {
    FieldOffset f = btf.field(path);
    checkSize(f, expectedSize);
    if (f.isBitfield()) {
      throw new BtfException("resolve " + path + ": is a bitfield, expected a whole field");
    }
    return f.byteOffset();
  }

  private static void checkSize(FieldOffset f, long expectedSize) throws BtfException {
    if (f.byteSize() != expectedSize) {
      throw new BtfException(
          "resolve " + f.path() + ": size " + f.byteSize() + " bytes, the programs read "
              + expectedSize + " (this kernel's layout is not supported)");
    }
  }

  private static void bitfield(Btf btf, Map<String, Long> d, String path, String prefix, String byteMacro)
      throws BtfException {
    FieldOffset f = btf.field(path);
    long bits = f.isBitfield() ? f.bitfieldSize() : f.byteSize() * 8;
    long shift = f.bitOffset() % 8;
    if (shift + bits > 8) {
      throw new BtfException("resolve " + path + ": bitfield crosses a byte boundary (bit "
          + f.bitOffset() + ", " + bits + " bits)");
    }
    d.put(byteMacro, f.bitOffset() / 8);
    d.put(prefix + "_SHIFT", shift);
    d.put(prefix + "_MASK", (1L << bits) - 1);
  }

  /**
   * Whether the kernel copies generic-XDP skbs of frags-aware programs into a page_pool instead of
   * linearizing them (6.9+).
   */
  public boolean xdpFragsCopy() {
    return defines.getOrDefault("XDP_HEADROOM_AFTER_MAC_PUSH", 0L) == 1L;
  }

  /** The constants by macro name. */
  public Map<String, Long> defines() {
    return defines;
  }

  public boolean has(String macro) {
    return defines.containsKey(macro);
  }

  /** {@code -DNAME=value} flags for libbcc. */
  public List<String> cflags() {
    List<String> flags = new ArrayList<>();
    defines.forEach((k, v) -> flags.add("-D" + k + "=" + v));
    return flags;
  }
}
