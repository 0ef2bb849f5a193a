package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.netlink.Attribute;
import io.segscope.agent.netlink.AttributeSet;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.GenericNetlink;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.Netlink;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Offload features through ethtool netlink (generic netlink family "ethtool", Linux ≥ 5.6):
 * ETHTOOL_MSG_FEATURES_GET with non-compact bitsets, which name every bit. The list of all feature
 * names comes from ETHTOOL_MSG_STRSET_GET (string set ETH_SS_FEATURES), read once.
 */
public final class EthtoolNetlinkFeatures implements FeatureReader {
  public static final String FAMILY = "ethtool";
  public static final int VERSION = 1;
  public static final int MSG_STRSET_GET = 1;
  public static final int MSG_FEATURES_GET = 11;

  public static final int A_HEADER_DEV_INDEX = 1;
  public static final int A_HEADER_DEV_NAME = 2;
  public static final int A_HEADER_FLAGS = 3;
  /**
   * ETHTOOL_FLAG_COMPACT_BITSETS: bitsets as bit arrays named by the ETH_SS_FEATURES string set,
   * instead of a nested attribute with the name of every bit (a device's reply shrinks from about
   * 10 KiB to a few hundred bytes; a burst of a thousand new devices is that many replies).
   */
  public static final int FLAG_COMPACT_BITSETS = 1;

  public static final int A_FEATURES_HEADER = 1;
  public static final int A_FEATURES_HW = 2;
  public static final int A_FEATURES_WANTED = 3;
  public static final int A_FEATURES_ACTIVE = 4;
  public static final int A_FEATURES_NOCHANGE = 5;

  public static final int A_BITSET_NOMASK = 1;
  public static final int A_BITSET_SIZE = 2;
  public static final int A_BITSET_BITS = 3;
  public static final int A_BITSET_VALUE = 4;
  public static final int A_BITSET_BITS_BIT = 1;
  public static final int A_BITSET_BIT_INDEX = 1;
  public static final int A_BITSET_BIT_NAME = 2;
  public static final int A_BITSET_BIT_VALUE = 3;

  public static final int A_STRSET_HEADER = 1;
  public static final int A_STRSET_STRINGSETS = 2;
  public static final int A_STRINGSETS_STRINGSET = 1;
  public static final int A_STRINGSET_ID = 1;
  public static final int A_STRINGSET_STRINGS = 3;
  public static final int A_STRINGS_STRING = 1;
  public static final int A_STRING_INDEX = 1;
  public static final int A_STRING_VALUE = 2;
  public static final int ETH_SS_FEATURES = 4;

  private final NetlinkSocket genl;
  private final int familyId;
  private final DecodeWarnings warnings;
  private List<String> known;

  private EthtoolNetlinkFeatures(NetlinkSocket genl, int familyId, DecodeWarnings warnings) {
    this.genl = genl;
    this.familyId = familyId;
    this.warnings = warnings;
  }

  /**
   * A reader on {@code genl} (a NETLINK_GENERIC socket, owned by the reader from now on), or empty
   * when the kernel has no "ethtool" family (the socket is then left open for the caller).
   */
  public static Optional<EthtoolNetlinkFeatures> open(NetlinkSocket genl, DecodeWarnings warnings) {
    OptionalInt id = GenericNetlink.resolveFamily(genl, FAMILY, warnings);
    return id.isPresent() ? Optional.of(new EthtoolNetlinkFeatures(genl, id.getAsInt(), warnings))
        : Optional.empty();
  }

  @Override
  public Features.Source source() {
    return Features.Source.ETHTOOL_NETLINK;
  }

  /** Every feature name of this kernel, in bit order. */
  public List<String> knownFeatures() {
    if (known == null) {
      known = decodeFeatureNames(requestFeatureNames(), warnings);
    }
    return known;
  }

  /** The raw ETHTOOL_MSG_STRSET_GET reply for ETH_SS_FEATURES. */
  public List<NetlinkMessage> requestFeatureNames() {
    MessageBuilder req = GenericNetlink.request(familyId, MSG_STRSET_GET, VERSION, Netlink.NLM_F_REQUEST)
        .beginNested(A_STRSET_HEADER).endNested()
        .beginNested(A_STRSET_STRINGSETS)
        .beginNested(A_STRINGSETS_STRINGSET).u32(A_STRINGSET_ID, ETH_SS_FEATURES).endNested()
        .endNested();
    return genl.request(req, "read ethtool feature names (ETHTOOL_MSG_STRSET_GET)");
  }

  /** The raw ETHTOOL_MSG_FEATURES_GET dump of every device of the namespace (compact bitsets). */
  public List<NetlinkMessage> dumpFeatures() {
    return dumpFeatures(true);
  }

  /** The raw ETHTOOL_MSG_FEATURES_GET dump, with compact bitsets or with every bit named. */
  public List<NetlinkMessage> dumpFeatures(boolean compact) {
    MessageBuilder req = GenericNetlink.request(familyId, MSG_FEATURES_GET, VERSION,
        Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)
        .beginNested(A_FEATURES_HEADER).u32(A_HEADER_FLAGS, compact ? FLAG_COMPACT_BITSETS : 0).endNested();
    return genl.dump(req, "dump features (ETHTOOL_MSG_FEATURES_GET)");
  }

  @Override
  public Features read(int ifindex, String name) {
    MessageBuilder req = GenericNetlink.request(familyId, MSG_FEATURES_GET, VERSION, Netlink.NLM_F_REQUEST)
        .beginNested(A_FEATURES_HEADER).u32(A_HEADER_DEV_INDEX, ifindex).u32(A_HEADER_FLAGS, FLAG_COMPACT_BITSETS)
        .endNested();
    String what = "read features of " + name + " (ifindex " + ifindex + ", ETHTOOL_MSG_FEATURES_GET)";
    try {
      List<String> names = knownFeatures();
      for (NetlinkMessage m : genl.request(req, what)) {
        return decodeFeatures(m, names, warnings);
      }
      return Features.unavailable(what + ": no reply");
    } catch (NetlinkException e) {
      return Features.unavailable(e.getMessage());
    }
  }

  @Override
  public Map<Integer, Features> readAll(Map<Integer, String> namesByIndex) {
    Map<Integer, Features> out = decodeFeatureDump(dumpFeatures(), knownFeatures(), warnings);
    // Devices created after the dump started, or missing from it: read them one by one.
    namesByIndex.forEach((index, name) -> out.computeIfAbsent(index, i -> read(i, name)));
    out.keySet().retainAll(namesByIndex.keySet());
    return out;
  }

  @Override
  public void close() {
    genl.close();
  }

  /**
   * Decodes a FEATURES_GET dump into features by ifindex; a reply that cannot be decoded is
   * skipped with a counted warning.
   */
  public static Map<Integer, Features> decodeFeatureDump(List<NetlinkMessage> replies, List<String> names,
      DecodeWarnings warnings) {
    Map<Integer, Features> out = new HashMap<>();
    for (NetlinkMessage m : replies) {
      try {
        OptionalLong index = replyHeader(m, warnings).u32(A_HEADER_DEV_INDEX);
        if (index.isEmpty()) {
          warnings.warn("dump features: a reply without ETHTOOL_A_HEADER_DEV_INDEX was skipped");
          continue;
        }
        out.put((int) index.getAsLong(), decodeFeatures(m, names, warnings));
      } catch (NetlinkException e) {
        warnings.warn("dump features: skipped an undecodable reply: " + e.getMessage());
      }
    }
    return out;
  }

  private static AttributeSet replyHeader(NetlinkMessage m, DecodeWarnings warnings) {
    return m.attributes(GenericNetlink.GENL_HEADER_LENGTH, warnings).nested(A_FEATURES_HEADER)
        .orElseThrow(() -> new NetlinkException("decode features reply: no ETHTOOL_A_FEATURES_HEADER"));
  }

  /** Decodes one ETHTOOL_MSG_FEATURES_GET reply. {@code known} maps bit index → name for compact sets. */
  public static Features decodeFeatures(NetlinkMessage m, List<String> known, DecodeWarnings warnings) {
    if (m.payloadLength() < 1 || m.payloadView().get(0) != MSG_FEATURES_GET) {
      throw new NetlinkException("decode features reply: not an ETHTOOL_MSG_FEATURES_GET_REPLY");
    }
    AttributeSet a = m.attributes(GenericNetlink.GENL_HEADER_LENGTH, warnings);
    return new Features(Features.Source.ETHTOOL_NETLINK, known,
        bitset(a, A_FEATURES_ACTIVE, known, warnings),
        bitset(a, A_FEATURES_HW, known, warnings),
        bitset(a, A_FEATURES_WANTED, known, warnings),
        bitset(a, A_FEATURES_NOCHANGE, known, warnings),
        "");
  }

  /** The names of the set bits of a bitset attribute (non-compact: named bits; compact: by index). */
  static Set<String> bitset(AttributeSet parent, int type, List<String> known, DecodeWarnings warnings) {
    AttributeSet bitset = parent.nested(type).orElseThrow(
        () -> new NetlinkException("decode features reply: bitset attribute " + type + " missing"));
    Set<String> set = new HashSet<>();
    boolean noMask = bitset.has(A_BITSET_NOMASK);
    Optional<AttributeSet> bits = bitset.nested(A_BITSET_BITS);
    if (bits.isPresent()) {
      for (Attribute bitAttr : bits.get().getAll(A_BITSET_BITS_BIT)) {
        AttributeSet bit = bitAttr.nested(warnings);
        boolean on = noMask || bit.has(A_BITSET_BIT_VALUE);
        if (!on) {
          continue;
        }
        Optional<String> name = bit.string(A_BITSET_BIT_NAME);
        OptionalLong index = bit.u32(A_BITSET_BIT_INDEX);
        if (name.isEmpty() && index.isPresent() && index.getAsLong() < known.size()) {
          name = Optional.of(known.get((int) index.getAsLong()));
        }
        if (name.isEmpty()) {
          warnings.warn("decode feature bitset " + type + ": a set bit without name or known index was skipped");
          continue;
        }
        if (!name.get().isEmpty()) {
          set.add(name.get()); // the kernel leaves a few internal bits unnamed; they cannot be reported
        }
      }
      return set;
    }
    Optional<Attribute> value = bitset.get(A_BITSET_VALUE);
    OptionalLong size = bitset.u32(A_BITSET_SIZE);
    if (value.isPresent() && size.isPresent()) {
      ByteBuffer words = value.get().payload().duplicate().order(ByteOrder.nativeOrder());
      long n = Math.min(size.getAsLong(), (long) words.remaining() * 8);
      for (int i = 0; i < n; i++) {
        int word = words.getInt((i / 32) * 4);
        if ((word & (1 << (i % 32))) != 0) {
          if (i < known.size()) {
            if (!known.get(i).isEmpty()) {
              set.add(known.get(i));
            }
          } else {
            warnings.warn("decode feature bitset " + type + ": bit " + i + " has no known name; skipped");
          }
        }
      }
    }
    return set;
  }

  /** Decodes the ETH_SS_FEATURES string set from ETHTOOL_MSG_STRSET_GET replies, index order. */
  public static List<String> decodeFeatureNames(List<NetlinkMessage> replies, DecodeWarnings warnings) {
    for (NetlinkMessage m : replies) {
      AttributeSet a = m.attributes(GenericNetlink.GENL_HEADER_LENGTH, warnings);
      Optional<AttributeSet> sets = a.nested(A_STRSET_STRINGSETS);
      if (sets.isEmpty()) {
        continue;
      }
      for (Attribute setAttr : sets.get().getAll(A_STRINGSETS_STRINGSET)) {
        AttributeSet set = setAttr.nested(warnings);
        if (set.u32(A_STRINGSET_ID).orElse(-1) != ETH_SS_FEATURES) {
          continue;
        }
        Map<Integer, String> byIndex = new HashMap<>();
        int max = -1;
        for (Attribute s : set.nested(A_STRINGSET_STRINGS).map(AttributeSet::all).orElse(List.of())) {
          if (s.type() != A_STRINGS_STRING) {
            continue;
          }
          AttributeSet str = s.nested(warnings);
          OptionalLong idx = str.u32(A_STRING_INDEX);
          Optional<String> val = str.string(A_STRING_VALUE);
          if (idx.isEmpty() || val.isEmpty() || idx.getAsLong() > 4096) {
            warnings.warn("decode feature names: a string without a usable index/value was skipped");
            continue;
          }
          byIndex.put((int) idx.getAsLong(), val.get());
          max = Math.max(max, (int) idx.getAsLong());
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i <= max; i++) {
          names.add(byIndex.getOrDefault(i, ""));
        }
        return names;
      }
    }
    throw new NetlinkException("read ethtool feature names: reply had no ETH_SS_FEATURES string set");
  }
}
