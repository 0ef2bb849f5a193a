package io.segscope.agent.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.host.sys.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The socket against the running kernel: port ids, dumps, kernel errors with errno text. */
@Tag("lab")
class NetlinkSocketLabTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private NetlinkSocket route() {
    return NetlinkSocket.open(Netlink.NETLINK_ROUTE, Duration.ofSeconds(5), warnings);
  }

  @Test
  void dumpEndsWithDoneAndRepliesCarryOurPortAndSequence() {
    try (NetlinkSocket s = route(); NetlinkSocket t = route()) {
      assertThat(s.portId()).isNotZero().isNotEqualTo(t.portId());
      MessageBuilder dump = new MessageBuilder(18, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP).header(new byte[16]);
      List<NetlinkMessage> first = s.dump(dump, "dump links");
      List<NetlinkMessage> second = s.dump(dump, "dump links again");
      assertThat(first).isNotEmpty().allSatisfy(m -> {
        assertThat(m.type()).isEqualTo(16); // RTM_NEWLINK
        assertThat(m.portId()).isEqualTo(s.portId());
      });
      assertThat(second.get(0).seq()).isEqualTo(first.get(0).seq() + 1);
      assertThat(warnings.count()).isZero();
    }
  }

  @Test
  void kernelErrorBecomesExceptionWithErrnoText() {
    try (NetlinkSocket s = route()) {
      byte[] ifinfo = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
          .putInt(4, 0x7ffffff0).array();
      MessageBuilder get = new MessageBuilder(18, Netlink.NLM_F_REQUEST).header(ifinfo);
      assertThatThrownBy(() -> s.request(get, "get link 2147483632"))
          .isInstanceOf(NetlinkException.class)
          .hasMessage("get link 2147483632: No such device (errno 19)")
          .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(Errno.ENODEV));
      // the socket stays usable after an error
      MessageBuilder dump = new MessageBuilder(18, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP).header(new byte[16]);
      assertThat(s.dump(dump, "dump links")).isNotEmpty();
    }
  }

  @Test
  void missingGenericFamilyIsEmptyAndEthtoolErrorsBecomeUnavailableFeatures() {
    NetlinkSocket genl = NetlinkSocket.open(Netlink.NETLINK_GENERIC, Duration.ofSeconds(5), warnings);
    assertThat(GenericNetlink.resolveFamily(genl, "sginv-nofam", warnings)).isEmpty();
    assertThatThrownBy(() -> GenericNetlink.resolveFamily(genl, "sginv-name-too-long", warnings))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 15 bytes");
    try (EthtoolNetlinkFeatures ethtool = EthtoolNetlinkFeatures.open(genl, warnings).orElseThrow()) {
      assertThat(ethtool.knownFeatures()).contains("tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro");
      Features f = ethtool.read(0x7ffffff0, "ghost0");
      assertThat(f.available()).isFalse();
      assertThat(f.error()).contains("ghost0").contains("No such device (errno 19)");
      assertThat(ethtool.read(1, "lo").isActive("tx-generic-segmentation")).isTrue();
    }
  }

  @Test
  void subscribedSocketDrainsWithoutBlockingAndClosedSocketRefuses() {
    NetlinkSocket s = route();
    s.subscribe(1, 1 << 20);
    long start = System.nanoTime();
    s.drain();
    assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
    s.close();
    s.close(); // idempotent
    MessageBuilder dump = new MessageBuilder(18, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP).header(new byte[16]);
    assertThatThrownBy(() -> s.dump(dump, "dump links")).hasMessage("dump links: socket is closed");
  }
}
