package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.wire.LinkDecoder;
import io.segscope.agent.inventory.wire.LinkNotifications;
import io.segscope.agent.inventory.wire.Rtnetlink;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.DecodeWarnings;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkMessages;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A drained batch of link notifications is reduced to each device's last one, and features are read
 * once per device (with one dump when many changed), on recorded dumps and built notifications.
 */
class LinkNotificationsTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private static ByteBuffer wrap(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  private static byte[] ifinfomsg(int family, int index) {
    return wrap(new byte[16]).put(0, (byte) family).putInt(4, index).array();
  }

  private static NetlinkMessage link(int type, int family, int index, String name, int mtu) {
    return NetlinkMessages.parse(wrap(new MessageBuilder(type, 0).header(ifinfomsg(family, index))
        .string(Rtnl.IFLA_IFNAME, name).u32(Rtnl.IFLA_MTU, mtu).build(1, 1))).get(0);
  }

  private static NetlinkMessage newLink(int index, String name, int mtu) {
    return link(Rtnl.RTM_NEWLINK, 0, index, name, mtu);
  }

  private static NetlinkMessage delLink(int index, String name) {
    return link(Rtnl.RTM_DELLINK, 0, index, name, 1500);
  }

  @Test
  void onlyEachDevicesLastNotificationCountsInTheOrderOfTheLastOnes() {
    LinkNotifications b = LinkNotifications.of(List.of(newLink(2, "c0p", 1500), newLink(3, "c0", 1500),
        newLink(2, "c0p", 9000), newLink(4, "gone", 1500), delLink(4, "gone"), delLink(5, "reused"),
        newLink(5, "reused", 1400), newLink(3, "c0", 1400)));
    assertThat(b.notifications()).isEqualTo(8);
    assertThat(b.latest().keySet()).containsExactly(2, 4, 5, 3);
    assertThat(LinkDecoder.decode(b.latest().get(2), warnings).mtu()).isEqualTo(9000);
    assertThat(b.latest().get(4).type()).isEqualTo(Rtnl.RTM_DELLINK);
    assertThat(b.latest().get(5).type()).isEqualTo(Rtnl.RTM_NEWLINK);
    assertThat(LinkDecoder.decode(b.latest().get(3), warnings).mtu()).isEqualTo(1400);
    assertThat(b.unreadable()).isEmpty();
  }

  @Test
  void bridgePortNotificationsAndOtherTypesAreNotDeviceChanges() {
    NetlinkMessage bridgePort = link(Rtnl.RTM_DELLINK, 7, 3, "vb", 1500);
    NetlinkMessage route = link(Rtnl.RTM_NEWROUTE, 0, 3, "vb", 1500);
    LinkNotifications b = LinkNotifications.of(List.of(newLink(3, "vb", 1500), bridgePort, route));
    assertThat(b.notifications()).isEqualTo(1);
    assertThat(b.latest().get(3).type()).isEqualTo(Rtnl.RTM_NEWLINK);
  }

  @Test
  void aNotificationWithoutAReadableIfindexIsReportedAndTheRestKept() {
    NetlinkMessage zero = newLink(0, "bad", 1500);
    NetlinkMessage shortOne = NetlinkMessages.parse(wrap(new MessageBuilder(Rtnl.RTM_NEWLINK, 0)
        .header(new byte[] {0, 0, 0, 0}).build(1, 1))).get(0);
    LinkNotifications b = LinkNotifications.of(List.of(zero, newLink(2, "ok", 1500), shortOne));
    assertThat(b.latest().keySet()).containsExactly(2);
    assertThat(b.unreadable()).hasSize(2);
    assertThat(b.notifications()).isEqualTo(3);
  }

  @Test
  void manyChangedDevicesAreReadWithOneDumpFewOrASmallShareOneByOne() {
    assertThat(LinkNotifications.oneDump(LinkNotifications.MIN_DUMP, LinkNotifications.MIN_DUMP)).isTrue();
    assertThat(LinkNotifications.oneDump(LinkNotifications.MIN_DUMP - 1, LinkNotifications.MIN_DUMP)).isFalse();
    assertThat(LinkNotifications.oneDump(40, 41)).isTrue();
    assertThat(LinkNotifications.oneDump(250, 1000)).isTrue();
    assertThat(LinkNotifications.oneDump(249, 1000)).isFalse();
    assertThat(LinkNotifications.oneDump(0, 0)).isFalse();
  }

  /** Counts how features are asked for; answers like a namespace whose devices all have features. */
  private static final class CountingFeatures implements NamespaceState.FeatureSource {
    final List<Integer> one = new ArrayList<>();
    final List<List<Integer>> several = new ArrayList<>();

    static Features of(Link l) {
      return new Features(Features.Source.ETHTOOL_NETLINK, List.of("tx-checksumming"), Set.of(l.name()),
          Set.of(), Set.of(), Set.of(), "");
    }

    @Override
    public Features one(Link link) {
      one.add(link.ifindex());
      return of(link);
    }

    @Override
    public Map<Integer, Features> several(List<Link> links) {
      several.add(links.stream().map(Link::ifindex).toList());
      Map<Integer, Features> out = new HashMap<>();
      links.stream().filter(l -> !l.name().equals("raced")).forEach(l -> out.put(l.ifindex(), of(l)));
      return out;
    }
  }

  @Test
  void aBurstOfVethPairsReadsEachDevicesFeaturesOnceWithOneDump() {
    CountingFeatures source = new CountingFeatures();
    NamespaceState state = new NamespaceState(null, source, warnings);
    List<NetlinkMessage> burst = new ArrayList<>();
    burst.add(newLink(1, "lo", 65536));
    for (int pair = 0; pair < 20; pair++) { // as ip link add cN type veth peer name cNp announces them
      int peer = 2 + 2 * pair;
      int dev = peer + 1;
      burst.add(newLink(peer, "c" + pair + "p", 1500));
      burst.add(newLink(dev, "c" + pair, 1500));
      burst.add(newLink(peer, "c" + pair + "p", 1500));
      burst.add(newLink(dev, "c" + pair, 1500));
    }
    assertThat(state.apply(burst)).isTrue();
    assertThat(state.size()).isEqualTo(41);
    assertThat(source.one).isEmpty();
    assertThat(source.several).hasSize(1);
    assertThat(source.several.get(0)).hasSize(41).doesNotHaveDuplicates();
    assertThat(state.featureDumps()).isEqualTo(1);
    assertThat(state.features(7).active()).containsExactly("c2");
    assertThat(warnings.count()).isZero();
  }

  @Test
  void aFewChangesAreReadOneByOneAndADeletionForgetsTheFeatures() {
    CountingFeatures source = new CountingFeatures();
    NamespaceState state = new NamespaceState(null, source, warnings);
    List<NetlinkMessage> first = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      first.add(newLink(i, "d" + i, 1500));
    }
    state.apply(first);
    source.several.clear();
    assertThat(state.apply(List.of(newLink(3, "d3", 9000), newLink(3, "d3", 9000), delLink(4, "d4")))).isTrue();
    assertThat(source.one).containsExactly(3);
    assertThat(source.several).isEmpty();
    assertThat(state.size()).isEqualTo(39);
    assertThat(state.features(4)).isNull();
    assertThat(state.links().get(3).mtu()).isEqualTo(9000);
    assertThat(state.featureRequests()).isEqualTo(1);
  }

  @Test
  void aDeviceMissingFromTheDumpHasUnavailableFeaturesSaySo() {
    CountingFeatures source = new CountingFeatures();
    NamespaceState state = new NamespaceState(null, source, warnings);
    List<NetlinkMessage> batch = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      batch.add(newLink(i, i == 5 ? "raced" : "d" + i, 1500));
    }
    state.apply(batch);
    assertThat(state.features(5).available()).isFalse();
    assertThat(state.features(5).error()).contains("raced").contains("missing from the reply");
    assertThat(state.features(6).available()).isTrue();
  }

  @Test
  void aRefreshReadsOnlyNewOrChangedLinksOnARecordedDump() {
    CountingFeatures source = new CountingFeatures();
    NamespaceState state = new NamespaceState(null, source, warnings);
    List<Link> dump = Rtnetlink.decodeLinks(Fixtures.messages("links-a.bin"), warnings);
    assertThat(dump).hasSizeGreaterThanOrEqualTo(2);
    assertThat(state.refreshLinks(dump)).isTrue();
    assertThat(source.one.size() + source.several.stream().mapToInt(List::size).sum()).isEqualTo(dump.size());
    source.one.clear();
    source.several.clear();
    assertThat(state.refreshLinks(dump)).isFalse();
    assertThat(source.one).isEmpty();
    assertThat(source.several).isEmpty();
    assertThat(state.refreshLinks(dump.subList(1, dump.size()))).isTrue();
    assertThat(state.size()).isEqualTo(dump.size() - 1);
    assertThat(state.features(dump.get(0).ifindex())).isNull();
    assertThat(source.one).isEmpty();
  }
}
