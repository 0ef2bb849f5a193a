package io.segscope.agent.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Features;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.XdpAttachment;
import io.segscope.device.DeviceId;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Which workload a device serves, on a Kubernetes-node-like topology. */
class DeviceWorkloadsTest {
  static final long HOST = 100;
  static final long POD = 201;
  static final long DOCKER = 202;
  static final long NAMED = 203;
  static final long PLAIN = 204;

  private final List<Device> devices = new ArrayList<>();

  private void dev(long ns, int index, String name, String kind, Integer link, Integer nsid) {
    Link l = new Link(index, name, kind, "", 1500, link == null ? OptionalInt.empty() : OptionalInt.of(link),
        OptionalInt.empty(), nsid == null ? OptionalInt.empty() : OptionalInt.of(nsid),
        OptionalLong.of(65536), OptionalLong.of(65535), OptionalLong.empty(), OptionalLong.empty(),
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), XdpAttachment.UNREPORTED, "UP",
        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), 1, OptionalInt.empty());
    devices.add(new Device(ns, "", l, Features.unavailable("test")));
  }

  private DeviceWorkloads node() {
    dev(HOST, 2, "eth0", "", null, null);
    dev(HOST, 7, "cni0", "bridge", null, null);
    dev(HOST, 10, "veth1a2b", "veth", 2, 1);   // peer: eth0 of the pod
    dev(HOST, 11, "vethd0c0", "veth", 2, 2);   // peer: eth0 of the docker container
    dev(HOST, 12, "vethn4m3", "veth", 2, 3);   // peer: in a named namespace nobody is in
    dev(HOST, 13, "vethgone", "veth", 2, 9);   // peer's nsid unknown
    dev(HOST, 14, "zbup1", "veth", 2, 4);      // peer: in a plain namespace where iperf3 runs
    dev(POD, 2, "eth0", "veth", 10, 0);
    dev(POD, 3, "mv0", "macvlan", 2, 0);       // lower: the host's eth0
    dev(DOCKER, 2, "eth0", "veth", 11, 0);
    dev(NAMED, 2, "eth0", "veth", 12, 0);
    dev(PLAIN, 2, "rcv0", "veth", 14, 0);
    Inventory inv = new Inventory(List.of(new Netns(HOST, "", Path.of("/proc/1/ns/net"), true),
        new Netns(POD, "cni-1", Path.of("/run/netns/cni-1"), false),
        new Netns(DOCKER, "", Path.of("/proc/77/ns/net"), false),
        new Netns(NAMED, "lab", Path.of("/run/netns/lab"), false),
        new Netns(PLAIN, "zbs1r", Path.of("/run/netns/zbs1r"), false)), devices,
        Map.of(HOST, Map.of(1, POD, 2, DOCKER, 3, NAMED, 4, PLAIN), POD, Map.of(0, HOST), DOCKER, Map.of(0, HOST),
            NAMED, Map.of(0, HOST), PLAIN, Map.of(0, HOST)),
        Instant.now());
    Workloads w = new Workloads(Map.of(
        POD, Workload.pod("web-0", "shop", "uid-1", "sandbox-1", "containerd"),
        DOCKER, CgroupOwner.classify("/docker/" + "ab".repeat(32), "nginx", 77),
        PLAIN, CgroupOwner.classify("/user.slice/user-0.slice/session-3.scope", "iperf3", 16150),
        HOST, Workload.pod("must-not", "win", "x", "y", "")), Instant.now());
    return new DeviceWorkloads(inv, w);
  }

  @Test
  void podAndContainerVethsServeTheirWorkloadOnBothSides() {
    DeviceWorkloads d = node();
    assertThat(d.served(DeviceId.of(POD, 2)).workload().name()).isEqualTo("shop/web-0");
    assertThat(d.served(DeviceId.of(POD, 2)).viaLink()).isFalse();
    DeviceWorkloads.Served hostSide = d.served(DeviceId.of(HOST, 10));
    assertThat(hostSide.workload().pod()).isEqualTo("web-0");
    assertThat(hostSide.netns()).isEqualTo(POD);
    assertThat(hostSide.viaLink()).isTrue();
    assertThat(d.served(DeviceId.of(HOST, 11)).workload().kind()).isEqualTo(WorkloadKind.CONTAINER);
    assertThat(d.served(DeviceId.of(POD, 3)).workload().pod()).as("a macvlan in the pod over the host's NIC")
        .isEqualTo("web-0");
  }

  @Test
  void theHostKeepsItsNicBridgeAndWhatServesNoWorkload() {
    DeviceWorkloads d = node();
    assertThat(d.ofNetns(HOST).kind()).as("the root namespace is the host, whatever was resolved for it")
        .isEqualTo(WorkloadKind.HOST);
    assertThat(d.served(DeviceId.of(HOST, 2)).workload().kind()).isEqualTo(WorkloadKind.HOST);
    assertThat(d.served(DeviceId.of(HOST, 7)).workload().kind()).isEqualTo(WorkloadKind.HOST);
    assertThat(d.served(DeviceId.of(HOST, 12)).workload().kind()).as("peer in a named namespace nobody is in")
        .isEqualTo(WorkloadKind.HOST);
    assertThat(d.served(DeviceId.of(NAMED, 2)).workload()).isEqualTo(Workload.named("lab"));
    assertThat(d.served(DeviceId.of(HOST, 13)).workload().kind()).as("peer namespace unknown")
        .isEqualTo(WorkloadKind.HOST);
    // issue 27: S1's uplink in the root namespace got the receiver namespace's iperf3 as its workload; a
    // plain process names its own namespace's devices, never a device of the host's
    assertThat(d.served(DeviceId.of(PLAIN, 2)).workload()).as("a named namespace with only a plain process in it")
        .isEqualTo(Workload.named("zbs1r"));
    assertThat(d.served(DeviceId.of(HOST, 14)).workload()).as("peer in a namespace where a plain process runs")
        .isEqualTo(Workload.host());
    assertThat(d.served(DeviceId.of(HOST, 14)).viaLink()).isFalse();
    assertThat(d.served(DeviceId.of(POD, 99)).workload().pod()).as("a device gone from the inventory: its namespace's")
        .isEqualTo("web-0");
    assertThat(d.ofNetns(999).kind()).isEqualTo(WorkloadKind.UNKNOWN);
  }
}
