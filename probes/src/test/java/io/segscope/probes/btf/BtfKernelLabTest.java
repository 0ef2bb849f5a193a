package io.segscope.probes.btf;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.Requirement;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reader on the running kernel's BTF, checked against bpftool's raw dump of the same file
 * (parsed by {@link BpftoolRawDump}, which shares no code with the reader). Needs bpftool and a
 * readable /sys/kernel/btf/vmlinux: without them the tests are skipped with the reason, or fail when
 * CI=true.
 */
@Tag("lab")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BtfKernelLabTest {

  /** The fields segscope's probes read. */
  static final List<String> REQUIRED = List.of(
      "sk_buff.next", "sk_buff.prev", "sk_buff.dev", "sk_buff.len", "sk_buff.data_len", "sk_buff.mac_len",
      "sk_buff.hdr_len", "sk_buff.cloned", "sk_buff.ip_summed", "sk_buff.redirected", "sk_buff.protocol",
      "sk_buff.transport_header", "sk_buff.network_header", "sk_buff.mac_header", "sk_buff.tail",
      "sk_buff.end", "sk_buff.head", "sk_buff.data", "sk_buff.users",
      "skb_shared_info.nr_frags", "skb_shared_info.gso_size", "skb_shared_info.gso_segs",
      "skb_shared_info.frag_list", "skb_shared_info.gso_type", "skb_shared_info.dataref",
      "net_device.features", "net_device.gso_max_size", "net_device.gso_max_segs",
      "net_device.gso_ipv4_max_size", "net_device.tso_max_size", "net_device.tso_max_segs",
      "net_device.ifindex", "net_device.nd_net", "net_device.nd_net.net", "net_device.name", "net_device.mtu",
      "net_device.hw_features", "net.ns", "net.ns.inum", "ns_common.inum");

  private Btf kernel;
  private BpftoolRawDump reference;
  private String bpftool;

  @BeforeAll
  void loadBoth() throws Exception {
    Path vmlinux = Btf.KERNEL_BTF;
    Requirement.require(Files.isReadable(vmlinux),
        vmlinux + " is not readable (kernel without CONFIG_DEBUG_INFO_BTF?)");
    Optional<String> tool =
        Stream.of("/usr/sbin/bpftool", "/usr/bin/bpftool", "/sbin/bpftool", "/usr/local/sbin/bpftool")
            .filter(p -> Files.isExecutable(Path.of(p))).findFirst();
    Requirement.require(tool.isPresent(), "bpftool not found (apt-get install bpftool)");
    bpftool = tool.get();

    long start = System.nanoTime();
    kernel = Btf.loadKernel();
    long coldMillis = (System.nanoTime() - start) / 1_000_000;
    start = System.nanoTime();
    Btf again = Btf.load(vmlinux);
    long warmMillis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf("parse %s: %d types, %d bytes: first parse %d ms, second %d ms%n", vmlinux,
        kernel.typeCount(), Files.size(vmlinux), coldMillis, warmMillis);
    assertThat(again.typeCount()).isEqualTo(kernel.typeCount());
    start = System.nanoTime();
    kernel.field("sk_buff.len");
    System.out.printf("first field lookup (builds the struct name index): %d ms%n",
        (System.nanoTime() - start) / 1_000_000);

    reference = BpftoolRawDump.of(bpftool, vmlinux);
  }

  @Test
  void requiredFieldsMatchBpftool() throws BtfException {
    int compared = 0;
    for (String path : REQUIRED) {
      BtfFixtureTest.Expected expected = reference.resolve(path);
      if (expected == null) {
        assertThat(kernel.findField(path)).as(path + " is absent in bpftool's dump").isEmpty();
        continue;
      }
      FieldOffset actual = kernel.field(path);
      assertThat(actual).as(path).isEqualTo(new FieldOffset(path, expected.bitOffset(),
          expected.bitfieldSize(), expected.byteSize()));
      System.out.printf("%-32s byte %4d bit %5d bitfield %d size %d%n", path, actual.byteOffset(),
          actual.bitOffset(), actual.bitfieldSize(), actual.byteSize());
      compared++;
    }
    assertThat(compared).as("required fields present in this kernel").isGreaterThanOrEqualTo(20);
    // on 5.x/6.x kernels these three are bitfields; bpftool agreed above on the exact encoding
    for (String bitfield : List.of("sk_buff.cloned", "sk_buff.ip_summed", "sk_buff.redirected")) {
      kernel.findField(bitfield).ifPresent(f -> assertThat(f.isBitfield()).as(bitfield).isTrue());
    }
  }

  @Test
  void everyMemberOfEveryNamedStructMatchesBpftool() throws BtfException {
    int compared = 0;
    for (Map.Entry<String, Integer> composite : reference.composites().entrySet()) {
      for (String member : reference.memberNames(composite.getValue())) {
        String path = composite.getKey() + "." + member;
        BtfFixtureTest.Expected expected = reference.resolve(path);
        assertThat(kernel.field(path)).as(path).isEqualTo(new FieldOffset(path, expected.bitOffset(),
            expected.bitfieldSize(), expected.byteSize()));
        compared++;
      }
      assertThat(kernel.structSize(composite.getKey())).as(composite.getKey())
          .hasValue(reference.structSize(composite.getKey()));
    }
    System.out.printf("compared %d members of %d structs/unions with bpftool%n", compared,
        reference.composites().size());
    assertThat(compared).isGreaterThan(10_000);
  }

  @Test
  void enumeratorsMatchBpftool() throws BtfException {
    for (String name : List.of("NETIF_F_TSO_BIT", "NETIF_F_GSO_LAST", "SKB_GSO_TCPV4", "SKB_GSO_TCPV6",
        "SKB_GSO_UDP_L4")) {
      Long expected = reference.enumerators().get(name);
      if (expected == null) {
        assertThat(kernel.findEnumValue(name)).as(name + " is absent in bpftool's dump").isEmpty();
      } else {
        assertThat(kernel.enumValue(name)).as(name).isEqualTo(expected);
        System.out.printf("%-20s = %d%n", name, expected);
      }
    }
    assertThat(reference.enumerators()).containsKeys("NETIF_F_TSO_BIT", "SKB_GSO_TCPV4", "SKB_GSO_TCPV6");
    for (Map.Entry<String, Long> e : reference.enumerators().entrySet()) {
      assertThat(kernel.findEnumValue(e.getKey())).as(e.getKey()).hasValue(e.getValue());
    }
    assertThat(reference.enumerators().size()).isGreaterThan(1000);
  }

  @Test
  void functionsMatchBpftool() {
    for (String name : List.of("__skb_gso_segment", "validate_xmit_skb", "skb_segment", "do_xdp_generic")) {
      assertThat(kernel.hasFunction(name)).as(name).isEqualTo(reference.functions().contains(name));
      System.out.printf("FUNC %-20s %s%n", name, reference.functions().contains(name));
    }
    assertThat(reference.functions()).contains("__skb_gso_segment");
    assertThat(reference.functions()).allSatisfy(f -> assertThat(kernel.hasFunction(f)).as(f).isTrue());
    assertThat(kernel.hasFunction("sk_buff")).isFalse();
    assertThat(kernel.hasFunction("no_such_function_in_any_kernel")).isFalse();
  }

  @Test
  void typeCountMatchesBpftool() {
    assertThat(kernel.typeCount()).isEqualTo(reference.lastId());
    assertThat(kernel.structSize("sk_buff")).hasValue(reference.structSize("sk_buff"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"fixture-le.btf", "fixture-be.btf"})
  void fixtureMatchesBpftool(String fixture, @TempDir Path dir) throws Exception {
    Path file = dir.resolve(fixture);
    try (InputStream in = getClass().getResourceAsStream("/btf/" + fixture)) {
      Files.write(file, in.readAllBytes());
    }
    Btf btf = Btf.load(file);
    BpftoolRawDump dump = BpftoolRawDump.of(bpftool, file);

    assertThat(btf.typeCount()).isEqualTo(dump.lastId());
    int compared = 0;
    for (Map.Entry<String, Integer> composite : dump.composites().entrySet()) {
      for (String member : dump.memberNames(composite.getValue())) {
        String path = composite.getKey() + "." + member;
        BtfFixtureTest.Expected e = dump.resolve(path);
        assertThat(btf.field(path)).as(path)
            .isEqualTo(new FieldOffset(path, e.bitOffset(), e.bitfieldSize(), e.byteSize()));
        compared++;
      }
    }
    assertThat(compared).isGreaterThanOrEqualTo(30);
    assertThat(dump.enumerators()).hasSize(9)
        .allSatisfy((name, value) -> assertThat(btf.findEnumValue(name)).as(name).hasValue(value));
    assertThat(dump.functions()).containsExactlyInAnyOrder("segment_packet", "call_helper", "helper")
        .allSatisfy(f -> assertThat(btf.hasFunction(f)).isTrue());
  }

  /** Guards against a reference that silently parses nothing. */
  @Test
  void referenceSawTheKernelStructs() {
    assertThat(reference.composites()).containsKeys("sk_buff", "skb_shared_info", "net_device", "net");
    assertThat(reference.lastId()).isGreaterThan(10_000);
  }
}
