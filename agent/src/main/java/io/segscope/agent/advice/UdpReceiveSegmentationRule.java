package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.vocabulary.Site;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code udp_receive_segmentation} (info, no command): UDP GSO super-packets (a local {@code UDP_SEGMENT}
 * sender over a veth, or UDP GRO on the receive path) reach a UDP socket whole, and the socket did
 * not ask for them whole ({@code UDP_GRO} unset), so the kernel segments them again on receive
 * ({@code udp_rcv_segment}: site {@code udp_rx}). Nothing on the device causes it and no device
 * setting removes it without costing more elsewhere: the receiving application can set
 * {@code UDP_GRO} on its socket and read whole super-packets (QUIC stacks do); the finding names the
 * device the packets arrived on and explains.
 */
public final class UdpReceiveSegmentationRule implements Rule {

  @Override
  public String name() {
    return "udp_receive_segmentation";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    double share = cost.siteShare(Site.UDP_RX);
    Optional<AdviceContext.Located> at = ctx.locateSegmenting(cost, share);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Map<String, Object> ev = Evidence.gso(cost);
    ev.put("site_udp_rx_share", Evidence.round(share));
    return Optional.of(new Finding(name(), "info", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("UDP super-packets arriving on %s are segmented again on receive, %.0f/s: the receiving "
            + "socket does not take them whole (UDP_GRO)", AdviceContext.label(d), cost.swSkbsPerSec() * share),
        ev, List.of(), cost.gsoCpu().cores() * share,
        "the CPU measured segmenting on receive at " + AdviceContext.label(d) + " (" + cost.gsoCpu().basis()
            + "): saved when the receiving application sets UDP_GRO",
        share >= 0.9 ? "high" : "medium", "none: no command is run",
        "The kernel handed this UDP socket GSO super-packets (from a UDP_SEGMENT sender in another namespace of "
            + "this host, or merged by UDP GRO), and the socket did not set the UDP_GRO option, so "
            + "udp_rcv_segment cuts each one back into datagrams before the socket sees them. The receiving "
            + "application can call setsockopt(fd, SOL_UDP, UDP_GRO, 1) and read whole super-packets (with the "
            + "segment size in a UDP_GRO control message), as QUIC servers do. There is no device setting to "
            + "change: making the sender or its device segment earlier moves the same work to the transmit side."));
  }
}
