package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.wire.LinkNotifications;
import io.segscope.agent.inventory.wire.Rtnl;
import io.segscope.agent.netlink.MessageBuilder;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkMessages;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The inventory thread's account of a burst of link notifications. */
class InventoryWorkTest {
  private static final long MS = 1_000_000L;

  private static LinkNotifications batch(int devices, int perDevice) {
    List<NetlinkMessage> out = new ArrayList<>();
    for (int n = 0; n < perDevice; n++) {
      for (int i = 1; i <= devices; i++) {
        byte[] ifi = ByteBuffer.wrap(new byte[16]).order(ByteOrder.nativeOrder()).putInt(4, i).array();
        out.add(NetlinkMessages.parse(ByteBuffer.wrap(new MessageBuilder(Rtnl.RTM_NEWLINK, 0).header(ifi)
            .string(Rtnl.IFLA_IFNAME, "d" + i).u32(Rtnl.IFLA_MTU, 1500).build(1, 1))
            .order(ByteOrder.nativeOrder())).get(0));
      }
    }
    return LinkNotifications.of(out);
  }

  @Test
  void aBurstIsSummedUpOnceItPausesWithWhereItsTimeWent() {
    InventoryWork w = new InventoryWork();
    assertThat(w.turnEnded(false, false, 0)).isEmpty();
    w.applied(11, batch(40, 2), 30 * MS, 0, 1, 1000 * MS);
    w.published(5 * MS, 1010 * MS);
    w.applied(12, batch(40, 2), 20 * MS, 3, 0, 1500 * MS);
    w.refreshed(7 * MS);
    assertThat(w.busy()).isTrue();
    assertThat(w.turnEnded(true, false, 1500 * MS)).isEmpty(); // still coming
    assertThat(w.turnEnded(false, true, 1500 * MS)).isEmpty(); // a snapshot still to publish
    w.published(6 * MS, 1760 * MS);
    assertThat(w.turnEnded(false, false, 1800 * MS)).hasValue("followed a burst of 160 link notifications"
        + " (80 device changes in 2 namespaces) in 790 ms: applying them 50 ms (features: 3 requests, 1 namespace"
        + " dumps), 2 snapshots published in 11 ms, 1 link refresh turns in 7 ms");
    assertThat(w.busy()).isFalse();
    w.published(5 * MS, 2000 * MS); // not part of a burst
    w.applied(11, batch(120, 1), 10 * MS, 0, 1, 3000 * MS);
    assertThat(w.turnEnded(false, false, 3000 * MS).orElseThrow()).startsWith("followed a burst of 120 link"
        + " notifications (120 device changes in 1 namespaces) in 10 ms").contains("0 snapshots published");
  }

  @Test
  void aSmallBurstIsNotLoggedAndAnEndlessOneIsSummedUpEveryMinute() {
    InventoryWork w = new InventoryWork();
    w.applied(11, batch(3, 2), MS, 0, 0, 10 * MS);
    assertThat(w.turnEnded(false, false, 20 * MS)).isEmpty();
    assertThat(w.busy()).isFalse();
    w.applied(11, batch(100, 1), MS, 0, 1, 10 * MS); // its first notification at 9 ms
    assertThat(w.turnEnded(true, false, 9 * MS + InventoryWork.LONGEST - 1)).isEmpty();
    assertThat(w.turnEnded(true, false, 9 * MS + InventoryWork.LONGEST)).isPresent();
    w.applied(11, LinkNotifications.of(List.of()), MS, 0, 0, 10 * MS);
    assertThat(w.busy()).isFalse();
  }
}
