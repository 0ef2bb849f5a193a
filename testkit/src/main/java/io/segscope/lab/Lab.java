package io.segscope.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A disposable network lab made of named network namespaces, veth pairs, bridges and macvlans, with
 * iperf3 traffic between them. It shells out to {@code ip}, {@code ethtool} and {@code iperf3} and
 * needs root.
 *
 * <p>Rules it enforces: every namespace is named {@code <prefix>-<role>} with a prefix claimed for this lab
 * alone ({@code sg} + 4 hex digits, see {@link #prefix()}); every device is created inside one of the
 * lab's namespaces, never in the root namespace, and may never be moved out of them; addresses come only
 * from 198.18.0.0/15 and no route is ever added, so nothing leaves the machine. Operations take only this
 * lab's namespaces and devices and throw on anything else.
 *
 * <p>Teardown: every step that creates something records how to undo it. {@link #close()} runs those
 * undo steps in reverse order (XDP detach, devices, namespaces, work directory), carries on past failures,
 * reports all of them in one exception, and is idempotent. Undo steps skip what is already gone. The
 * owner file of the prefix is removed last and only if everything else went; if not, a later
 * {@link #sweepStale()} can finish the job once this process has exited. There is no shutdown hook.
 */
public final class Lab implements AutoCloseable {
  private static final Pattern ROLE = Pattern.compile("[a-z][a-z0-9]{0,11}");
  private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");
  private static final int FIRST_IPERF_PORT = 5201;
  static final String ALIAS_PREFIX = "segscope-lab ";

  private final String prefix;
  private final String tag;
  private final String ip;
  private final Teardown teardown;
  private final Map<String, Netns> namespaces = new LinkedHashMap<>();
  private final Map<String, Set<String>> devices = new HashMap<>();
  private int nextIperfPort = FIRST_IPERF_PORT;
  private boolean closed;

  private Lab(String prefix, String tag, String ip) {
    this.prefix = prefix;
    this.tag = tag;
    this.ip = ip;
    this.teardown = new Teardown(ip);
  }

  /**
   * Claims a fresh prefix and returns an empty lab. {@code tag} says who made it (kept in the owner file
   * for whoever finds a leftover).
   */
  public static Lab create(String tag) {
    String ipPath = Tools.require("ip");
    String prefix = LabOwner.claim(tag);
    return new Lab(prefix, tag, ipPath);
  }

  /** The lab's name prefix, {@code sg} + 4 hex digits; every namespace of the lab starts with it and a dash. */
  public String prefix() {
    return prefix;
  }

  public String tag() {
    return tag;
  }

  /** The interface alias ({@code ip link ... alias}) carried by every device this lab creates. */
  public String alias() {
    return ALIAS_PREFIX + prefix;
  }

  /**
   * What of this lab still exists, as readable descriptions; empty after a clean {@link #close()}. Looks for
   * the lab's namespace names under /run/netns, and for devices carrying {@link #alias()} in the root
   * namespace, in every named namespace, and in any unnamed namespace a process still holds open with one
   * of the lab's namespace inodes. Read-only.
   */
  public List<String> leftovers() {
    List<Netns> made;
    synchronized (this) {
      made = List.copyOf(namespaces.values());
    }
    return Leftovers.find(ip, prefix, alias(), made);
  }

  /** The namespaces made so far, in creation order. */
  public synchronized List<Netns> namespaces() {
    return List.copyOf(namespaces.values());
  }

  /** Creates namespace {@code <prefix>-<role>} and brings its loopback up. */
  public synchronized Netns namespace(String role) {
    checkOpen();
    if (role == null || !ROLE.matcher(role).matches()) {
      throw new IllegalArgumentException("create namespace in lab " + prefix + ": role " + role
          + " must match " + ROLE.pattern());
    }
    String name = prefix + "-" + role;
    if (namespaces.containsKey(name)) {
      throw new IllegalArgumentException("create namespace " + name + ": already made by this lab");
    }
    ip("netns", "add", name);
    teardown.recordNamespace(name);
    ip("-n", name, "link", "set", "dev", "lo", "up");
    Netns ns = new Netns(name, Netnses.inode(name));
    namespaces.put(name, ns);
    devices.put(name, new HashSet<>());
    return ns;
  }

  /** Creates veth pair {@code nameA} (in {@code a}) / {@code nameB} (in {@code b}) and brings both ends up. */
  public synchronized void veth(Netns a, String nameA, Netns b, String nameB) {
    checkOpen();
    own(a);
    own(b);
    newDevice(a, nameA);
    newDevice(b, nameB);
    if (a.equals(b) && nameA.equals(nameB)) {
      throw new IllegalArgumentException("create veth " + nameA + " in " + a.name() + ": both ends have one name");
    }
    ip("-n", a.name(), "link", "add", nameA, "type", "veth", "peer", "name", nameB, "netns", b.name());
    recordDevice(a, nameA);
    devices.get(b.name()).add(nameB); // goes with its peer
    up(a, nameA);
    up(b, nameB);
  }

  /** Creates bridge {@code name} in {@code ns} (STP off), enslaves {@code ports} (lab devices in ns), brings it up. */
  public synchronized void bridge(Netns ns, String name, String... ports) {
    checkOpen();
    own(ns);
    newDevice(ns, name);
    for (String port : ports) {
      ownDevice(ns, port);
    }
    ip("-n", ns.name(), "link", "add", name, "type", "bridge", "stp_state", "0");
    recordDevice(ns, name);
    for (String port : ports) {
      ip("-n", ns.name(), "link", "set", "dev", port, "master", name);
    }
    up(ns, name);
  }

  /**
   * Creates macvlan {@code name} in {@code mode} (e.g. {@code "bridge"}) on {@code lower} inside
   * {@code lowerNs}, then moves it into {@code ns} and brings it up.
   */
  public synchronized void macvlan(Netns ns, String name, Netns lowerNs, String lower, String mode) {
    checkOpen();
    own(ns);
    own(lowerNs);
    ownDevice(lowerNs, lower);
    newDevice(lowerNs, name);
    newDevice(ns, name);
    ip("-n", lowerNs.name(), "link", "add", "link", lower, "name", name, "type", "macvlan", "mode", mode);
    recordDevice(lowerNs, name);
    if (!ns.equals(lowerNs)) {
      ip("-n", lowerNs.name(), "link", "set", "dev", name, "netns", ns.name());
      devices.get(lowerNs.name()).remove(name);
      recordDevice(ns, name);
    }
    up(ns, name);
  }

  /**
   * Creates device {@code name} of {@code type} in {@code ns} ({@code ip link add name <name> type <type>
   * <typeArgs>}: vxlan, geneve, ifb, bond, wireguard, ...) and brings it up. {@code typeArgs} may name
   * lab devices of {@code ns} ({@code dev u0}) but never another namespace.
   */
  public synchronized void link(Netns ns, String name, String type, String... typeArgs) {
    checkOpen();
    own(ns);
    newDevice(ns, name);
    List<String> argv = new ArrayList<>(List.of("-n", ns.name(), "link", "add", "name", name, "type", type));
    argv.addAll(typeArgs(ns, name, typeArgs));
    ip(argv.toArray(String[]::new));
    recordDevice(ns, name);
    up(ns, name);
  }

  /**
   * Creates device {@code name} of {@code type} on lab device {@code lower} inside {@code lowerNs}
   * ({@code ip link add link <lower> name <name> type <type> <typeArgs>}: vlan, ipvlan, macvtap, ...),
   * moves it into {@code ns} and brings it up.
   */
  public synchronized void linkOn(Netns ns, String name, Netns lowerNs, String lower, String type,
      String... typeArgs) {
    checkOpen();
    own(ns);
    own(lowerNs);
    ownDevice(lowerNs, lower);
    newDevice(lowerNs, name);
    newDevice(ns, name);
    List<String> argv = new ArrayList<>(List.of("-n", lowerNs.name(), "link", "add", "link", lower, "name", name,
        "type", type));
    argv.addAll(typeArgs(lowerNs, name, typeArgs));
    ip(argv.toArray(String[]::new));
    recordDevice(lowerNs, name);
    if (!ns.equals(lowerNs)) {
      ip("-n", lowerNs.name(), "link", "set", "dev", name, "netns", ns.name());
      devices.get(lowerNs.name()).remove(name);
      recordDevice(ns, name);
    }
    up(ns, name);
  }

  private static List<String> typeArgs(Netns ns, String name, String... typeArgs) {
    for (String a : typeArgs) {
      if (a.equals("netns") || a.equals("link-netns") || a.equals("link-netnsid")) {
        throw new IllegalArgumentException("create " + name + " in " + ns.name() + ": `" + a
            + "` not allowed here (lab devices stay in their namespaces)");
      }
    }
    return Arrays.asList(typeArgs);
  }

  /**
   * Creates a persistent tap device {@code name} with virtio-net headers in {@code ns}
   * ({@code ip tuntap add dev <name> mode tap vnet_hdr}; a process attaches with
   * IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, see {@link TapInjector}) and brings it up.
   */
  public synchronized void tap(Netns ns, String name) {
    checkOpen();
    own(ns);
    newDevice(ns, name);
    ip("-n", ns.name(), "tuntap", "add", "dev", name, "mode", "tap", "vnet_hdr");
    recordDevice(ns, name);
    up(ns, name);
  }

  /** Adds {@code cidr} to lab device {@code dev}; refuses anything outside 198.18.0.0/15 (IPv6: 2001:2::/48, no DAD). */
  public synchronized void address(Netns ns, String dev, String cidr) {
    checkOpen();
    own(ns);
    ownDevice(ns, dev);
    LabAddress.requireLab(cidr);
    if (LabAddress.isIpv6(cidr)) {
      ip("-n", ns.name(), "addr", "add", cidr, "dev", dev, "nodad");
    } else {
      ip("-n", ns.name(), "addr", "add", cidr, "dev", dev);
    }
  }

  /**
   * {@code ip route add <cidr> via <via>} in {@code ns}: both lab addresses, so a route only ever
   * leads from one lab namespace to another (a routed lab topology), never out of the machine.
   */
  public synchronized void route(Netns ns, String cidr, String via) {
    checkOpen();
    own(ns);
    LabAddress.requireLab(cidr);
    LabAddress.requireLab(via + (LabAddress.isIpv6(via) ? "/128" : "/32"));
    ip("-n", ns.name(), "route", "add", cidr, "via", via);
  }

  /** {@code sysctl -w <key>=<value>} inside {@code ns}; only the namespace's own {@code net.} keys. */
  public synchronized void sysctl(Netns ns, String key, String value) {
    checkOpen();
    own(ns);
    if (!key.matches("net\\.(ipv4|ipv6|core)\\.[a-z0-9_.]+") || key.contains("..")) {
      throw new IllegalArgumentException("set sysctl " + key + " in " + ns.name()
          + ": only net.ipv4.*, net.ipv6.* and net.core.* keys of the namespace");
    }
    execIn(ns, List.of(Tools.require("sysctl"), "-qw", key + "=" + value));
  }

  /**
   * {@code tc <args>} inside {@code ns} (qdiscs and filters on the lab's devices there; they go with the
   * device or the namespace on close).
   */
  public synchronized void tc(Netns ns, String... args) {
    checkOpen();
    own(ns);
    List<String> argv = new ArrayList<>(List.of(Tools.require("tc")));
    argv.addAll(Arrays.asList(args));
    execIn(ns, argv);
  }

  /**
   * {@code ip link set dev <dev> <args>} in {@code ns}, e.g. {@code "gso_max_size", "16384"}. Refuses
   * {@code netns} (devices never leave the lab), {@code alias} (it marks lab devices) and {@code xdp*}
   * (use {@link #xdp}, which detaches on close).
   */
  public synchronized void set(Netns ns, String dev, String... ipLinkSetArgs) {
    checkOpen();
    own(ns);
    ownDevice(ns, dev);
    for (String arg : ipLinkSetArgs) {
      if (arg.equals("netns") || arg.equals("alias") || arg.startsWith("xdp")) {
        throw new IllegalArgumentException("set " + dev + " in " + ns.name() + ": `" + arg
            + "` not allowed here (devices stay in lab namespaces, keep the lab alias;"
            + " attach XDP with xdp())");
      }
    }
    List<String> argv = new ArrayList<>(List.of("-n", ns.name(), "link", "set", "dev", dev));
    argv.addAll(Arrays.asList(ipLinkSetArgs));
    ip(argv.toArray(String[]::new));
  }

  /** {@code ethtool -K <dev> <features>} in {@code ns}, e.g. {@code "tso", "off"}. */
  public synchronized void ethtoolK(Netns ns, String dev, String... features) {
    checkOpen();
    own(ns);
    ownDevice(ns, dev);
    List<String> argv = new ArrayList<>(List.of(Tools.require("ethtool"), "-K", dev));
    argv.addAll(Arrays.asList(features));
    execIn(ns, argv);
  }

  /**
   * Attaches section {@code section} of BPF object {@code object} to {@code dev} in XDP {@code mode}
   * ({@code "xdpgeneric"}, {@code "xdpdrv"}, {@code "xdp"}); detached again on close.
   */
  public synchronized void xdp(Netns ns, String dev, String mode, Path object, String section) {
    checkOpen();
    own(ns);
    ownDevice(ns, dev);
    if (!List.of("xdp", "xdpgeneric", "xdpdrv").contains(mode)) {
      throw new IllegalArgumentException("attach XDP to " + dev + ": unknown mode " + mode);
    }
    ip("-n", ns.name(), "link", "set", "dev", dev, mode, "obj", object.toString(), "sec", section);
    record("detach " + mode + " from " + dev + " in " + ns.name(), () -> {
      if (deviceExists(ns, dev)) {
        ip("-n", ns.name(), "link", "set", "dev", dev, mode, "off");
      }
    });
  }

  /** Runs {@code cmd} inside {@code ns} and returns its stdout; throws with the command line and stderr. */
  public synchronized String exec(Netns ns, String... cmd) {
    checkOpen();
    own(ns);
    if (cmd.length == 0) {
      throw new IllegalArgumentException("run command in " + ns.name() + ": empty command");
    }
    List<String> argv = new ArrayList<>(Arrays.asList(cmd));
    if (!argv.get(0).contains("/")) {
      argv.set(0, Tools.find(argv.get(0)).map(Path::toString).orElse(argv.get(0)));
    }
    return execIn(ns, argv);
  }

  /**
   * Runs an iperf3 TCP test of {@code d} (whole seconds, at least 1) from {@code client} to a one-shot
   * server in {@code server} bound to {@code serverAddr} (a lab address) on a port of its own. The server
   * is always killed afterwards.
   */
  public IperfResult iperf(Netns client, Netns server, String serverAddr, Duration d) {
    return iperf(client, server, serverAddr, d, List.of());
  }

  /**
   * As {@link #iperf}, over UDP at full rate with datagrams of {@code length} bytes ({@code -u -l LENGTH -b 0}):
   * small packets, the per-packet cost of a host. The result's raw JSON has the sender's packet count
   * ({@code end.sum_sent.packets}).
   */
  public IperfResult iperfUdp(Netns client, Netns server, String serverAddr, Duration d, int length) {
    if (length < 16 || length > 65507) {
      throw new IllegalArgumentException("iperf3 UDP datagram length " + length + " outside 16..65507");
    }
    return iperf(client, server, serverAddr, d, List.of("-u", "-l", Integer.toString(length), "-b", "0"));
  }

  private IperfResult iperf(Netns client, Netns server, String serverAddr, Duration d, List<String> clientArgs) {
    int port;
    Path logDir;
    synchronized (this) {
      checkOpen();
      own(client);
      own(server);
      port = nextIperfPort++;
      logDir = workDir();
    }
    return new Iperf(ip, Tools.require("iperf3"), Tools.require("ss"))
        .run(client, server, LabAddress.host(LabAddress.requireLab(LabAddress.host(serverAddr)
            + (LabAddress.isIpv6(serverAddr) ? "/128" : "/32"))),
            port, d, logDir, clientArgs);
  }

  /** A directory private to this lab (under /run/segscope-lab), removed on close. */
  public synchronized Path workDir() {
    checkOpen();
    Path dir = LabOwner.workDir(prefix);
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new LabException("create lab work directory " + dir + ": " + e.getMessage(), e);
      }
      record("delete work directory " + dir, () -> LabOwner.deleteWorkDir(prefix));
    }
    return dir;
  }

  /**
   * Undoes everything this lab made, newest first; continues past failures and throws one
   * {@link LabException} listing them all (each attached as suppressed). Calling it again does nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<Teardown.Failure> failures = teardown.run();
    if (failures.isEmpty()) {
      LabOwner.release(prefix);
      return;
    }
    LabException e = new LabException("tear down lab " + prefix + " (" + tag + "): " + failures.size()
        + " step(s) failed; owner file kept for Lab.sweepStale(): "
        + String.join("; ", failures.stream().map(Teardown.Failure::text).toList()));
    failures.forEach(f -> e.addSuppressed(f.cause()));
    throw e;
  }

  /**
   * Deletes namespaces left by lab runs whose process died (crash, kill -9) before closing. Safe by
   * construction: it looks only at prefixes whose owner file in /run/segscope-lab names a process that no
   * longer exists (a pid reused by another process is recognised by its start time), deletes only
   * namespaces named {@code <that prefix>-<role>}, and leaves any namespace that a process still lives in.
   * The owner file goes when all its namespaces are gone. Namespaces matching the pattern but without an
   * owner file are left alone: nothing proves they are the lab's.
   *
   * @return the namespaces deleted
   */
  public static List<String> sweepStale() {
    return StaleLabs.sweep(ROLE);
  }

  @Override
  public String toString() {
    return "Lab[" + prefix + " " + tag + (closed ? ", closed" : "") + "]";
  }

  // --- internals -------------------------------------------------------------------------------------

  void record(String what, Runnable action) {
    teardown.record(what, action);
  }

  /**
   * Tracks a device the lab made in {@code ns}. No undo step: every lab device is virtual and lives in a lab
   * namespace, so deleting the namespace at close deletes it.
   */
  private void recordDevice(Netns ns, String dev) {
    devices.get(ns.name()).add(dev);
  }

  private boolean deviceExists(Netns ns, String dev) {
    if (!Netnses.exists(ns.name())) {
      return false;
    }
    return Command.attempt(List.of(ip, "-n", ns.name(), "link", "show", "dev", dev), Command.DEFAULT_TIMEOUT).ok();
  }

  /** Brings a new device up and labels it with {@link #alias()}, so leftovers can be found anywhere. */
  private void up(Netns ns, String dev) {
    ip("-n", ns.name(), "link", "set", "dev", dev, "alias", alias(), "up");
  }

  private String ip(String... args) {
    List<String> argv = new ArrayList<>(args.length + 1);
    argv.add(ip);
    argv.addAll(Arrays.asList(args));
    return Command.run(argv);
  }

  private String execIn(Netns ns, List<String> cmd) {
    List<String> argv = new ArrayList<>(List.of(ip, "netns", "exec", ns.name()));
    argv.addAll(cmd);
    return Command.run(argv);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("use lab " + prefix + ": already closed");
    }
  }

  private void own(Netns ns) {
    if (ns == null || !ns.equals(namespaces.get(ns.name()))) {
      throw new IllegalArgumentException("use namespace " + (ns == null ? null : ns.name())
          + ": not made by lab " + prefix);
    }
  }

  private void ownDevice(Netns ns, String dev) {
    if (!devices.get(ns.name()).contains(dev)) {
      throw new IllegalArgumentException("use device " + dev + " in " + ns.name() + ": not made by lab " + prefix);
    }
  }

  private void newDevice(Netns ns, String dev) {
    if (dev == null || !DEVICE.matcher(dev).matches()) {
      throw new IllegalArgumentException("create device " + dev + " in " + ns.name()
          + ": name must match " + DEVICE.pattern() + " (IFNAMSIZ is 16 with the NUL)");
    }
    if (devices.get(ns.name()).contains(dev)) {
      throw new IllegalArgumentException("create device " + dev + " in " + ns.name() + ": already made by this lab");
    }
  }
}
