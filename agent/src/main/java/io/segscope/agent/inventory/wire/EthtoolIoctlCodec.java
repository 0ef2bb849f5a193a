package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The byte layouts of the SIOCETHTOOL requests used as a fallback for features
 * (include/uapi/linux/ethtool.h): ETHTOOL_GSSET_INFO and ETHTOOL_GSTRINGS for the ETH_SS_FEATURES
 * names, ETHTOOL_GFEATURES for the four feature words per 32 bits. Pure functions over byte
 * arrays, so that they are testable without a kernel; replies are checked before use.
 */
public final class EthtoolIoctlCodec {
  public static final int SIOCETHTOOL = 0x8946;
  public static final int ETHTOOL_GSTRINGS = 0x1b;
  public static final int ETHTOOL_GSSET_INFO = 0x37;
  public static final int ETHTOOL_GFEATURES = 0x3a;
  public static final int ETH_SS_FEATURES = 4;
  public static final int ETH_GSTRING_LEN = 32;
  /** Far above the ~70 features of 6.18; bounds buffers when a reply is hostile. */
  static final int MAX_FEATURES = 4096;

  private EthtoolIoctlCodec() {}

  /** struct ethtool_sset_info {u32 cmd; u32 reserved; u64 sset_mask; u32 data[1];}. */
  public static byte[] ssetInfoRequest() {
    return buffer(20).putInt(0, ETHTOOL_GSSET_INFO).putLong(8, 1L << ETH_SS_FEATURES).array();
  }

  /** The number of feature strings from a GSSET_INFO reply. */
  public static int parseSsetInfo(byte[] reply) {
    ByteBuffer b = wrap(reply, 20, "ETHTOOL_GSSET_INFO");
    if ((b.getLong(8) & (1L << ETH_SS_FEATURES)) == 0) {
      throw new NetlinkException("read feature count (ETHTOOL_GSSET_INFO): ETH_SS_FEATURES not reported");
    }
    int count = b.getInt(16);
    if (count <= 0 || count > MAX_FEATURES) {
      throw new NetlinkException("read feature count (ETHTOOL_GSSET_INFO): implausible count " + count);
    }
    return count;
  }

  /** struct ethtool_gstrings {u32 cmd; u32 string_set; u32 len; u8 data[len * 32];}. */
  public static byte[] gstringsRequest(int count) {
    return buffer(12 + count * ETH_GSTRING_LEN).putInt(0, ETHTOOL_GSTRINGS).putInt(4, ETH_SS_FEATURES)
        .putInt(8, count).array();
  }

  public static List<String> parseGstrings(byte[] reply, int count) {
    ByteBuffer b = wrap(reply, 12 + count * ETH_GSTRING_LEN, "ETHTOOL_GSTRINGS");
    int len = b.getInt(8);
    if (len != count) {
      throw new NetlinkException("read feature names (ETHTOOL_GSTRINGS): kernel returned " + len
          + " strings, asked for " + count);
    }
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int off = 12 + i * ETH_GSTRING_LEN;
      int end = off;
      while (end < off + ETH_GSTRING_LEN && reply[end] != 0) {
        end++;
      }
      names.add(new String(reply, off, end - off, StandardCharsets.UTF_8));
    }
    return names;
  }

  public static int blocks(int count) {
    return (count + 31) / 32;
  }

  /** struct ethtool_gfeatures {u32 cmd; u32 size; {u32 available, requested, active, never_changed}[size];}. */
  public static byte[] gfeaturesRequest(int count) {
    int blocks = blocks(count);
    return buffer(8 + blocks * 16).putInt(0, ETHTOOL_GFEATURES).putInt(4, blocks).array();
  }

  /**
   * Decodes a GFEATURES reply with the names from GSTRINGS: available → hardware, requested →
   * wanted, active → active, never_changed → noChange (the same sets ethtool netlink reports).
   */
  public static Features parseGfeatures(byte[] reply, List<String> names) {
    int blocks = blocks(names.size());
    ByteBuffer b = wrap(reply, 8 + blocks * 16, "ETHTOOL_GFEATURES");
    int size = b.getInt(4);
    if (size < blocks) {
      throw new NetlinkException("read features (ETHTOOL_GFEATURES): kernel filled " + size
          + " blocks, " + blocks + " needed for " + names.size() + " features");
    }
    Set<String> hardware = new HashSet<>();
    Set<String> wanted = new HashSet<>();
    Set<String> active = new HashSet<>();
    Set<String> noChange = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (name.isEmpty()) {
        continue;
      }
      int base = 8 + (i / 32) * 16;
      int bit = 1 << (i % 32);
      addIf(hardware, name, b.getInt(base) & bit);
      addIf(wanted, name, b.getInt(base + 4) & bit);
      addIf(active, name, b.getInt(base + 8) & bit);
      addIf(noChange, name, b.getInt(base + 12) & bit);
    }
    return new Features(Features.Source.ETHTOOL_IOCTL, names, active, hardware, wanted, noChange, "");
  }

  private static void addIf(Set<String> set, String name, int masked) {
    if (masked != 0) {
      set.add(name);
    }
  }

  private static ByteBuffer buffer(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
  }

  private static ByteBuffer wrap(byte[] reply, int need, String what) {
    if (reply.length < need) {
      throw new NetlinkException("decode " + what + " reply: " + reply.length + " bytes, " + need + " needed");
    }
    return ByteBuffer.wrap(reply).order(ByteOrder.nativeOrder());
  }
}
