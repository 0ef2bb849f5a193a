package io.segscope.agent.inventory.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.inventory.Fixtures;
import io.segscope.agent.inventory.RoutingFixtureRecorder;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Route;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkMessages;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The route, netconf and qdisc decoders on dumps recorded from the 6.18 kernel
 * (RoutingFixtureRecorder), against what ip, tc and sysctl printed at the same moment; and the same
 * bytes truncated and corrupted: only {@link NetlinkException} may escape, bad records are counted.
 */
class RecordedRoutingTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private Map<String, Integer> ifindexes() {
    Map<String, Integer> out = new HashMap<>();
    for (Link l : Rtnetlink.decodeLinks(Fixtures.messages("links-r.bin"), warnings)) {
      out.put(l.name(), l.ifindex());
    }
    return out;
  }

  @Test
  void recordedRoutesMatchIp() {
    RouteDecoder.RoutesRead read = RouteDecoder.decodeRoutes(Fixtures.messages("routes-r.bin"), warnings);
    Map<String, Integer> index = ifindexes();
    List<String> expected = new ArrayList<>();
    Set<Integer> egress = new HashSet<>();
    for (JsonNode r : Fixtures.json("routes-r.ip.json")) {
      String table = r.path("table").asText("main");
      String type = r.path("type").asText("unicast");
      String dst = r.path("dst").asText();
      if (!type.equals("unicast") || table.equals("local") || dst.startsWith("fe80") || dst.startsWith("ff")) {
        continue;
      }
      expected.add(dst.contains("/") ? dst : dst.equals("default") ? "0.0.0.0/0" : dst + "/32");
      if (r.has("dev")) {
        egress.add(index.get(r.path("dev").asText()));
      }
      r.path("nexthops").forEach(nh -> egress.add(index.get(nh.path("dev").asText())));
    }
    assertThat(read.routes()).extracting(Route::destination).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(read.count()).isEqualTo(expected.size());
    assertThat(read.egress().keySet()).containsExactlyInAnyOrderElementsOf(egress);
    assertThat(read.egress().get(index.get("r1"))).isEqualTo(OptionalLong.of(1300));
    assertThat(read.routes()).filteredOn(r -> r.destination().equals("198.18.40.0/24")).singleElement()
        .satisfies(r -> assertThat(r.oifs()).containsExactly(index.get("r1"), index.get("r0")));
    assertThat(read.routes()).filteredOn(r -> r.destination().equals("198.18.43.0/24")).singleElement()
        .satisfies(r -> assertThat(r.table()).isEqualTo(100));
    assertThat(warnings.count()).isZero();
  }

  @Test
  void recordedForwardingMatchesSysctl() {
    Set<Integer> on = RouteDecoder.decodeForwarding(Fixtures.messages("netconf4-r.bin"), warnings);
    Map<String, Integer> index = ifindexes();
    Set<Integer> expected = new HashSet<>();
    Fixtures.json("netconf4-r.sysctl.json").fields().forEachRemaining(e -> {
      if (e.getValue().asInt() == 1) {
        expected.add(index.get(e.getKey()));
      }
    });
    assertThat(on).containsExactlyInAnyOrderElementsOf(expected).doesNotContain(index.get("r2"));
    // IPv6 forwarding is off in the recorded namespace
    assertThat(RouteDecoder.decodeForwarding(Fixtures.messages("netconf6-r.bin"), warnings)).isEmpty();
    assertThat(warnings.count()).isZero();
  }

  @Test
  void recordedQdiscsMatchTc() {
    List<Qdisc> qdiscs = QdiscDecoder.decodeAll(Fixtures.messages("qdiscs-r.bin"), warnings);
    Map<String, Integer> index = ifindexes();
    JsonNode tc = Fixtures.json("qdiscs-r.tc.json");
    assertThat(qdiscs).hasSize(tc.size());
    for (JsonNode q : tc) {
      int ifindex = index.get(q.path("dev").asText());
      Qdisc mine =
          qdiscs.stream().filter(x -> x.ifindex() == ifindex && x.handleText().equals(q.path("handle").asText()))
              .findFirst().orElseThrow(() -> new AssertionError("not decoded: " + q));
      assertThat(mine.kind()).isEqualTo(q.path("kind").asText());
      assertThat(mine.root()).isEqualTo(q.path("root").asBoolean(false));
      if (mine.kind().equals("tbf")) {
        Qdisc.Tbf p = mine.tbf().orElseThrow();
        assertThat(p.rateBytesPerSec()).isEqualTo(q.path("options").path("rate").asLong());
        assertThat((double) p.burstBytes()).isCloseTo(q.path("options").path("burst").asDouble(), within(1.0));
      }
    }
    Qdisc child = qdiscs.stream().filter(x -> x.handleText().equals("20:")).findFirst().orElseThrow();
    assertThat(child.parentText()).isEqualTo("1:10");
    assertThat(child.tbf().orElseThrow().limitBytes()).isEqualTo(20000);
    assertThat(qdiscs.stream().filter(x -> x.tbf().map(t -> t.peakBytesPerSec() > 0).orElse(false)))
        .singleElement().satisfies(x -> assertThat(x.ifindex()).isEqualTo(index.get("r2")));
    assertThat(warnings.count()).isZero();
  }

  private static ByteBuffer wrap(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  private void decodeAll(String fixture, List<NetlinkMessage> msgs) {
    if (fixture.startsWith("routes")) {
      RouteDecoder.decodeRoutes(msgs, warnings);
    } else if (fixture.startsWith("netconf")) {
      RouteDecoder.decodeForwarding(msgs, warnings);
    } else {
      QdiscDecoder.decodeAll(msgs, warnings);
    }
  }

  @Test
  void everyTruncationAndCorruptionFailsCleanly() {
    Random random = new Random(20261201L);
    for (String fixture : List.of("routes-r.bin", "netconf4-r.bin", "qdiscs-r.bin")) {
      byte[] dump = Fixtures.bytes(fixture);
      for (int len = 0; len < dump.length; len++) {
        try {
          decodeAll(fixture, NetlinkMessages.parse(wrap(Arrays.copyOf(dump, len))));
        } catch (NetlinkException e) {
          assertThat(e.getMessage()).isNotBlank();
        }
      }
      for (int round = 0; round < 400; round++) {
        byte[] b = dump.clone();
        for (int i = 0, flips = 1 + random.nextInt(8); i < flips; i++) {
          b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
        try {
          decodeAll(fixture, NetlinkMessages.parse(wrap(b)));
        } catch (NetlinkException e) {
          assertThat(e.getMessage()).isNotBlank();
        }
      }
    }
  }

  private static NetlinkMessage one(MessageBuilder mb) {
    return NetlinkMessages.parse(wrap(mb.build(1, 1))).get(0);
  }

  private static byte[] rtmsg(int family, int dstLen, int table, int type) {
    byte[] h = new byte[Rtnl.RTMSG_LENGTH];
    h[0] = (byte) family;
    h[1] = (byte) dstLen;
    h[4] = (byte) table;
    h[7] = (byte) type;
    return h;
  }

  @Test
  void hostileRoutesAreSkippedAndCounted() {
    // a prefix longer than IPv4 allows, a destination of the wrong size, a nexthop list that lies about its length
    NetlinkMessage longPrefix = one(new MessageBuilder(Rtnl.RTM_NEWROUTE, 0).header(rtmsg(2, 40, 254, 1))
        .attr(Rtnl.RTA_DST, new byte[4]).u32(Rtnl.RTA_OIF, 3));
    NetlinkMessage shortDst = one(new MessageBuilder(Rtnl.RTM_NEWROUTE, 0).header(rtmsg(2, 24, 254, 1))
        .attr(Rtnl.RTA_DST, new byte[3]).u32(Rtnl.RTA_OIF, 3));
    byte[] nh = wrap(new byte[8]).putShort(0, (short) 200).putInt(4, 4).array();
    NetlinkMessage badNexthop = one(new MessageBuilder(Rtnl.RTM_NEWROUTE, 0).header(rtmsg(2, 24, 254, 1))
        .attr(Rtnl.RTA_DST, new byte[] {(byte) 198, 18, 9, 0}).attr(Rtnl.RTA_MULTIPATH, nh));
    NetlinkMessage viaObject = one(new MessageBuilder(Rtnl.RTM_NEWROUTE, 0).header(rtmsg(2, 24, 254, 1))
        .attr(Rtnl.RTA_DST, new byte[] {(byte) 198, 18, 8, 0}).u32(Rtnl.RTA_NH_ID, 7));
    RouteDecoder.RoutesRead r =
        RouteDecoder.decodeRoutes(List.of(longPrefix, shortDst, badNexthop, viaObject), warnings);
    assertThat(r.routes()).extracting(Route::destination).containsExactly("198.18.9.0/24", "198.18.8.0/24");
    assertThat(r.routes().get(0).oifs()).isEmpty();
    assertThat(r.routes().get(1).nexthopObject()).isTrue();
    assertThat(r.nexthopObjects()).isEqualTo(1);
    assertThat(r.egress()).isEmpty();
    assertThat(warnings.count()).isEqualTo(3);
    NetlinkMessage shortHeader = one(new MessageBuilder(Rtnl.RTM_NEWROUTE, 0).header(new byte[6]));
    assertThatThrownBy(() -> RouteDecoder.decode(shortHeader, warnings)).isInstanceOf(NetlinkException.class)
        .hasMessageContaining("shorter than rtmsg");
  }

  @Test
  void hostileQdiscsAreRejectedOrKeptWithoutParameters() {
    byte[] tcmsg = wrap(new byte[Rtnl.TCMSG_LENGTH]).putInt(4, 3).putInt(12, Rtnl.TC_H_ROOT).array();
    NetlinkMessage noKind = one(new MessageBuilder(Rtnl.RTM_NEWQDISC, 0).header(tcmsg));
    assertThatThrownBy(() -> QdiscDecoder.decode(noKind, warnings)).isInstanceOf(NetlinkException.class)
        .hasMessageContaining("no TCA_KIND");
    NetlinkMessage shortParms = one(new MessageBuilder(Rtnl.RTM_NEWQDISC, 0).header(tcmsg).string(Rtnl.TCA_KIND, "tbf")
        .beginNested(Rtnl.TCA_OPTIONS).attr(Rtnl.TCA_TBF_PARMS, new byte[20]).endNested());
    Qdisc q = QdiscDecoder.decode(shortParms, warnings);
    assertThat(q.kind()).isEqualTo("tbf");
    assertThat(q.tbf()).isEmpty();
    assertThat(warnings.count()).isEqualTo(1);
    byte[] zeroIndex = new byte[Rtnl.TCMSG_LENGTH];
    assertThatThrownBy(() -> QdiscDecoder.decode(one(new MessageBuilder(Rtnl.RTM_NEWQDISC, 0).header(zeroIndex)
        .string(Rtnl.TCA_KIND, "tbf")), warnings)).hasMessageContaining("not positive");
  }
}
