package io.segscope.lab;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lab scenarios (docs/lab.md), each built in a {@link Lab} next to its healthy control (same topology,
 * consistent settings). Namespace roles carry the scenario and a {@code h} for the healthy variant
 * ({@code s1snd}, {@code s1hsnd}, ...) and the two variants use different /24s, so one lab can hold a
 * scenario and its control side by side. Builders use only {@code ip} and {@code ethtool} (S3 also clang);
 * they do not send traffic. Diagrams and addresses: docs/lab.md.
 */
public final class Scenarios {
    /** gso_max_size put on the S1 uplink. */
    public static final int S1_UPLINK_GSO_MAX_SIZE = 16384;

    private Scenarios() {
    }

    /**
     * S1, GSO size mismatch: sender veth {@code snd0} → its peer {@code snd0p} in bridge {@code br0} of a
     * switch namespace → uplink veth {@code up0} in the same bridge, with {@code gso_max_size 16384} unless
     * healthy → its peer {@code rcv0} in the receiver namespace. Roles: sender, senderPeer, bridge, uplink,
     * receiver. Addresses 198.18.1.1/24 → .2 (healthy 198.18.11.0/24).
     */
    public static Topology s1GsoMismatch(Lab lab, boolean healthy) {
        String v = healthy ? "h" : "";
        String net = healthy ? "198.18.11." : "198.18.1.";
        Netns snd = lab.namespace("s1" + v + "snd");
        Netns sw = lab.namespace("s1" + v + "sw");
        Netns rcv = lab.namespace("s1" + v + "rcv");
        lab.veth(snd, "snd0", sw, "snd0p");
        lab.veth(sw, "up0", rcv, "rcv0");
        lab.bridge(sw, "br0", "snd0p", "up0");
        if (!healthy) {
            lab.set(sw, "up0", "gso_max_size", Integer.toString(S1_UPLINK_GSO_MAX_SIZE));
        }
        lab.address(snd, "snd0", net + "1/24");
        lab.address(rcv, "rcv0", net + "2/24");
        Map<String, DeviceAt> devices = new LinkedHashMap<>();
        devices.put("sender", new DeviceAt(snd, "snd0"));
        devices.put("senderPeer", new DeviceAt(sw, "snd0p"));
        devices.put("bridge", new DeviceAt(sw, "br0"));
        devices.put("uplink", new DeviceAt(sw, "up0"));
        devices.put("receiver", new DeviceAt(rcv, "rcv0"));
        return new Topology(name("s1-gso-mismatch", healthy), snd, rcv, net + "2", devices);
    }

    /**
     * S2, offload lost below a virtual device: lower veth {@code low0} lives in a lower namespace, its peer
     * {@code rcv0} in the receiver namespace; macvlan {@code mv0} (bridge mode) on {@code low0} is moved into
     * the sender namespace. Unless healthy, {@code ethtool -K low0 tso off}. Traffic mv0 → low0 → rcv0.
     * Roles: macvlan (also "sender"), lower, receiver. Addresses 198.18.2.1/24 → .2 (healthy 198.18.12.0/24).
     */
    public static Topology s2OffloadLost(Lab lab, boolean healthy) {
        String v = healthy ? "h" : "";
        String net = healthy ? "198.18.12." : "198.18.2.";
        Netns snd = lab.namespace("s2" + v + "snd");
        Netns low = lab.namespace("s2" + v + "low");
        Netns rcv = lab.namespace("s2" + v + "rcv");
        lab.veth(low, "low0", rcv, "rcv0");
        lab.macvlan(snd, "mv0", low, "low0", "bridge");
        if (!healthy) {
            lab.ethtoolK(low, "low0", "tso", "off");
        }
        lab.address(snd, "mv0", net + "1/24");
        lab.address(rcv, "rcv0", net + "2/24");
        Map<String, DeviceAt> devices = new LinkedHashMap<>();
        devices.put("sender", new DeviceAt(snd, "mv0"));
        devices.put("macvlan", new DeviceAt(snd, "mv0"));
        devices.put("lower", new DeviceAt(low, "low0"));
        devices.put("receiver", new DeviceAt(rcv, "rcv0"));
        return new Topology(name("s2-offload-lost", healthy), snd, rcv, net + "2", devices);
    }

    /**
     * S3, generic XDP: veth {@code snd0} in the sender namespace, peer {@code rcv0} in the receiver
     * namespace; unless healthy, an XDP_PASS program (built with clang from xdp_pass.c) attached to
     * {@code rcv0} in generic mode, detached on close. Roles: sender, receiver. Addresses 198.18.3.1/24 → .2
     * (healthy 198.18.13.0/24).
     */
    public static Topology s3GenericXdp(Lab lab, boolean healthy) {
        String v = healthy ? "h" : "";
        String net = healthy ? "198.18.13." : "198.18.3.";
        Path object = healthy ? null : XdpPass.build(lab.workDir());
        Netns snd = lab.namespace("s3" + v + "snd");
        Netns rcv = lab.namespace("s3" + v + "rcv");
        lab.veth(snd, "snd0", rcv, "rcv0");
        if (!healthy) {
            lab.xdp(rcv, "rcv0", "xdpgeneric", object, XdpPass.SECTION);
        }
        lab.address(snd, "snd0", net + "1/24");
        lab.address(rcv, "rcv0", net + "2/24");
        Map<String, DeviceAt> devices = new LinkedHashMap<>();
        devices.put("sender", new DeviceAt(snd, "snd0"));
        devices.put("receiver", new DeviceAt(rcv, "rcv0"));
        return new Topology(name("s3-generic-xdp", healthy), snd, rcv, net + "2", devices);
    }

    private static String name(String base, boolean healthy) {
        return healthy ? base + "-healthy" : base;
    }
}
