package io.segscope.agent.inventory.wire;

import io.segscope.agent.netlink.NetlinkException;
import io.segscope.agent.netlink.NetlinkMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A drained batch of RTNLGRP_LINK notifications reduced to what it says about each device: every
 * RTM_NEWLINK carries the device's whole state (rtnl_fill_ifinfo), so only the last RTM_NEWLINK or
 * RTM_DELLINK of an ifindex in the batch counts. Creating a veth pair announces each end two or
 * three times; a burst of a thousand pairs is thousands of notifications for two thousand devices,
 * and each device is decoded and has its features read once instead of once per notification.
 *
 * <p>Bridge-family (AF_BRIDGE) port notifications and other message types are not device changes
 * and are left out. A message whose ifindex cannot be read is returned in {@link #unreadable}.
 *
 * @param latest per ifindex, in the order of each device's last notification: that notification
 * @param unreadable why each message without a readable ifindex was left out
 * @param notifications how many link notifications (RTM_NEWLINK/RTM_DELLINK of AF_UNSPEC) the batch held
 */
public record LinkNotifications(Map<Integer, NetlinkMessage> latest, List<String> unreadable, int notifications) {
  private static final int AF_UNSPEC = 0;

  /**
   * Below this many devices whose features must be read, one request each is cheaper than a dump of
   * the whole namespace.
   */
  public static final int MIN_DUMP = 8;

  public LinkNotifications {
    latest = Collections.unmodifiableMap(new LinkedHashMap<>(latest));
    unreadable = List.copyOf(unreadable);
  }

  public static LinkNotifications of(List<NetlinkMessage> batch) {
    Map<Integer, NetlinkMessage> latest = new LinkedHashMap<>();
    List<String> unreadable = new ArrayList<>();
    int notifications = 0;
    for (NetlinkMessage m : batch) {
      if (m.type() != Rtnl.RTM_NEWLINK && m.type() != Rtnl.RTM_DELLINK) {
        continue;
      }
      if (m.payloadLength() >= 1 && Byte.toUnsignedInt(m.payloadView().get(0)) != AF_UNSPEC) {
        continue;
      }
      notifications++;
      try {
        int index = LinkDecoder.ifindex(m);
        latest.remove(index); // keep the order of the last notification
        latest.put(index, m);
      } catch (NetlinkException e) {
        unreadable.add(e.getMessage());
      }
    }
    return new LinkNotifications(latest, unreadable, notifications);
  }

  /**
   * Whether the features of {@code changed} devices of a namespace that has {@code known} devices
   * are read with one dump of the namespace (one request, one reply per device) rather than one
   * request per device: when there are at least {@link #MIN_DUMP} of them and they are at least a
   * quarter of the namespace (a dump of a thousand devices for ten is not cheaper).
   */
  public static boolean oneDump(int changed, int known) {
    return changed >= MIN_DUMP && 4L * changed >= known;
  }
}
