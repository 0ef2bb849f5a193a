package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.netlink.Attribute;
import io.segscope.agent.netlink.AttributeSet;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Decodes RTM_NEWQDISC messages. A message shorter than its tcmsg, without a kind, or with broken
 * attribute framing throws {@link NetlinkException}; tbf parameters of the wrong size are left out
 * with a counted warning (the qdisc is still reported, without them).
 */
public final class QdiscDecoder {
  /** PSCHED_SHIFT: tbf reports its buckets in ticks of 2^6 ns. */
  static final int PSCHED_SHIFT = 6;

  private QdiscDecoder() {}

  public static Qdisc decode(NetlinkMessage m, DecodeWarnings warnings) {
    if (m.type() != Rtnl.RTM_NEWQDISC && m.type() != Rtnl.RTM_DELQDISC) {
      throw new NetlinkException("decode qdisc message: type " + m.type() + " is not RTM_NEWQDISC or RTM_DELQDISC");
    }
    ByteBuffer p = m.payloadView();
    if (p.remaining() < Rtnl.TCMSG_LENGTH) {
      throw new NetlinkException("decode qdisc message: payload of " + p.remaining()
          + " bytes is shorter than tcmsg (" + Rtnl.TCMSG_LENGTH + ")");
    }
    int ifindex = p.getInt(4);
    int handle = p.getInt(8);
    int parent = p.getInt(12);
    if (ifindex <= 0) {
      throw new NetlinkException("decode qdisc message: ifindex " + ifindex + " is not positive");
    }
    AttributeSet a = m.attributes(Rtnl.TCMSG_LENGTH, warnings);
    String kind = a.string(Rtnl.TCA_KIND)
        .orElseThrow(() -> new NetlinkException("decode qdisc of ifindex " + ifindex + ": no TCA_KIND"));
    Optional<Qdisc.Tbf> tbf = Optional.empty();
    Optional<Qdisc.Cake> cake = Optional.empty();
    if (kind.equals("tbf")) {
      tbf = a.nested(Rtnl.TCA_OPTIONS).flatMap(o -> tbf(o, warnings));
    } else if (kind.equals("cake")) {
      cake = a.nested(Rtnl.TCA_OPTIONS).map(o -> new Qdisc.Cake(o.u64(Rtnl.TCA_CAKE_BASE_RATE64).orElse(0),
          o.u32(Rtnl.TCA_CAKE_SPLIT_GSO).orElse(1) != 0));
    }
    return new Qdisc(ifindex, handle, parent, kind, tbf, cake);
  }

  private static Optional<Qdisc.Tbf> tbf(AttributeSet o, DecodeWarnings warnings) {
    Optional<Attribute> parms = o.get(Rtnl.TCA_TBF_PARMS);
    if (parms.isEmpty()) {
      warnings.warn("decode tbf qdisc: no TCA_TBF_PARMS; parameters unknown");
      return Optional.empty();
    }
    byte[] raw = parms.get().bytes();
    if (raw.length < Rtnl.TC_TBF_QOPT_LENGTH) {
      warnings.warn("decode tbf qdisc: TCA_TBF_PARMS has " + raw.length + " bytes, expected "
          + Rtnl.TC_TBF_QOPT_LENGTH + "; parameters unknown");
      return Optional.empty();
    }
    ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
    int linklayer = Byte.toUnsignedInt(b.get(1)) & 0x0f;
    int overhead = Short.toUnsignedInt(b.getShort(2));
    int mpu = Short.toUnsignedInt(b.getShort(6));
    long rate = Integer.toUnsignedLong(b.getInt(8));
    long peak = Integer.toUnsignedLong(b.getInt(12 + 8));
    long limit = Integer.toUnsignedLong(b.getInt(24));
    long buffer = Integer.toUnsignedLong(b.getInt(28));
    long mtu = Integer.toUnsignedLong(b.getInt(32));
    OptionalLong rate64 = o.u64(Rtnl.TCA_TBF_RATE64);
    if (rate64.isPresent()) {
      rate = rate64.getAsLong();
    }
    OptionalLong peak64 = o.u64(Rtnl.TCA_TBF_PRATE64);
    if (peak64.isPresent()) {
      peak = peak64.getAsLong();
    }
    return Optional.of(new Qdisc.Tbf(rate, peak, limit, bytesAt(rate, buffer), peak > 0 ? bytesAt(peak, mtu) : 0,
        overhead, mpu, linklayer));
  }

  /** The bytes a bucket of {@code ticks} holds at {@code rate} bytes/s (what tc prints as burst). */
  static long bytesAt(long rate, long ticks) {
    return Math.round((double) rate * (ticks << PSCHED_SHIFT) / 1e9);
  }

  /** Every qdisc of a dump; an undecodable message is left out and counted. */
  static List<Qdisc> decodeAll(List<NetlinkMessage> messages, DecodeWarnings warnings) {
    List<Qdisc> out = new ArrayList<>();
    for (NetlinkMessage m : messages) {
      if (m.type() != Rtnl.RTM_NEWQDISC) {
        warnings.warn("dump qdiscs: skipped a message of type " + m.type());
        continue;
      }
      try {
        out.add(decode(m, warnings));
      } catch (NetlinkException e) {
        warnings.warn("dump qdiscs: skipped an undecodable qdisc: " + e.getMessage());
      }
    }
    return out;
  }
}
