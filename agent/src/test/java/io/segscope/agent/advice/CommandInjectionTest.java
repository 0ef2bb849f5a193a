package io.segscope.agent.advice;

import static io.segscope.agent.advice.LabInventories.RECEIVER;
import static io.segscope.agent.advice.LabInventories.SENDER;
import static io.segscope.agent.advice.LabInventories.SWITCH;
import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.model.Qdisc;
import io.segscope.agent.inventory.model.Routing;
import io.segscope.agent.inventory.wire.PathBytes;
import io.segscope.device.DeviceId;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.XdpDeviceStats;
import io.segscope.host.names.NameCodec;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule × hostile device names × hostile namespace names × every way a namespace is reached
 * (root, /run/netns name, a --netns-dir bind mount, /proc/PID with the inode guard): each command
 * segscope recommends is run through {@code sh -c} with argv-recording shims for ip, tc, ethtool,
 * nsenter, bpftool and rm first on PATH. No command may create a file (the names try
 * {@code touch c} every way a shell allows), and every program must receive exactly the argv
 * bytes written out below, independently of the code under test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandInjectionTest {

  /** Valid interface names (dev_valid_name: 1..15 bytes, no '/', ':' or whitespace). */
  static final List<byte[]> DEVICE_NAMES = List.of(
      utf8("$(touch${IFS}c)"), utf8(";touch${IFS}c"), utf8("`touch${IFS}c`"), utf8("|touch${IFS}c"),
      utf8("&&touch${IFS}c"), utf8("a'b"), utf8("a\"b"), utf8("a\\b"), utf8("-c"), utf8("-j"),
      utf8("e\u001b[31m"), bytes(0xff, 0xfe), bytes(0x1c), utf8("u\u2028"), utf8("w\u3000"), utf8("*"),
      utf8("~root"), utf8("#x"), utf8("eth0"));

  /** Namespace file names: anything but '/' and NUL, so whitespace and newlines too. */
  static final List<byte[]> NETNS_NAMES = List.of(
      utf8("$(touch${IFS}c)"), utf8(";touch${IFS}c"), utf8("`touch${IFS}c`"), utf8("a'b"), utf8("a\"b"),
      utf8("a\\b"), utf8("-c"), utf8("e\u001b[31m"), bytes(0xff, 0xfe), bytes(0x1c), utf8("u\u2028"),
      utf8("a b"), utf8("a\nb\n"), utf8("lab-ns"));

  private static final long PID_NETNS_PID = 4242;

  @TempDir
  static Path tmp;
  private Path shims;
  private Path work;
  private Path netnsDir;
  private Path logs;
  private long ownNetns;
  private final Map<String, Path> netnsDirEntries = new HashMap<>();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  private static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @BeforeAll
  void shimsAndNamespaceFiles() throws Exception {
    shims = Files.createDirectories(tmp.resolve("shims"));
    work = Files.createDirectories(tmp.resolve("work"));
    netnsDir = Files.createDirectories(tmp.resolve("netns-dir"));
    logs = tmp.resolve("calls");
    // a shim records its argv (count, program, arguments; NUL-separated); nsenter and "ip netns exec"
    // then run what they were asked to, like the real ones (without changing namespace)
    String record = "printf '%s\\0' \"$#\" \"${0##*/}\" \"$@\" >> \"$SHIM_LOG\"\n";
    shim("ip", record + "if [ \"$1\" = netns ] && [ \"$2\" = exec ]; then shift 3; exec \"$@\"; fi\n");
    shim("nsenter", record + "while [ $# -gt 0 ] && [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n");
    for (String p : List.of("ethtool", "bpftool", "rm", "tc")) {
      shim(p, record);
    }
    // the --netns-dir bind mounts: real files with the exact bytes as names, made by printf octal escapes
    StringBuilder script = new StringBuilder("cd \"$1\" || exit 1\n");
    for (byte[] n : NETNS_NAMES) {
      script.append("touch -- \"$(printf '").append(octal(n)).append("x')\"\n");
    }
    run(List.of("/bin/sh", "-c", script.toString(), "make-names", netnsDir.toString()), null);
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(netnsDir)) {
      for (Path p : ds) {
        String form = PathBytes.fileName(p);
        netnsDirEntries.put(form.substring(0, form.length() - 1), p); // without the trailing x
      }
    }
    assertThat(netnsDirEntries).hasSize(NETNS_NAMES.size());
    ownNetns = ((Number) Files.getAttribute(Path.of("/proc/self/ns/net"), "unix:ino")).longValue();
  }

  /** Every byte as \ooo (printf): an encoder independent of the one under test. */
  private static String octal(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("\\%03o", x & 0xff));
    }
    return s.toString();
  }

  private void shim(String name, String body) throws IOException {
    Path p = shims.resolve(name);
    Files.writeString(p, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  // ---- how each kind of namespace is reached

  /** How the test names a namespace: what segscope got from discovery, and the bytes expected for it. */
  record Place(String kind, Netns netns, byte[] name, byte[] path) {}

  private List<Place> places(long inode) {
    List<Place> out = new ArrayList<>();
    for (byte[] n : NETNS_NAMES) {
      String form = NameCodec.decode(n);
      out.add(new Place("run-netns", new Netns(inode, form, Path.of("/run/netns/lab-ns"), false), n,
          cat(utf8("/run/netns/"), n)));
      Path entry = netnsDirEntries.get(NameCodec.decode(cat(n)));
      byte[] entryBytes = PathBytes.of(entry);
      // discovery names it by its file name; the test file name carries a trailing 'x'
      out.add(new Place("netns-dir", new Netns(inode, PathBytes.fileName(entry), entry, false),
          cat(n, utf8("x")), entryBytes));
    }
    out.add(new Place("pid", new Netns(inode, "", Path.of("/proc/" + PID_NETNS_PID + "/ns/net"), false), new byte[0],
        utf8("/proc/" + PID_NETNS_PID + "/ns/net")));
    out.add(new Place("root", new Netns(inode, "", Path.of("/proc/1/ns/net"), true), new byte[0], new byte[0]));
    return out;
  }

  /**
   * The argv that reach the programs, in order, for a command {@code tool} meant to run in
   * {@code place}; written out by hand from docs/recommendations.md, not computed by segscope.
   */
  private List<List<byte[]>> expected(Place place, long guardInode, boolean ipTool, List<byte[]> tool) {
    List<List<byte[]>> calls = new ArrayList<>();
    switch (place.kind()) {
      case "root" -> calls.add(tool);
      case "run-netns" -> {
        if (ipTool) { // ip -n NAME <rest of the ip command>, tc -n NAME <rest of the tc command>
          List<byte[]> ip = new ArrayList<>(List.of(tool.get(0), utf8("-n"), place.name()));
          ip.addAll(tool.subList(1, tool.size()));
          calls.add(ip);
        } else if (Arrays.equals(tool.get(0), utf8("ethtool"))) { // ip netns exec NAME ethtool ...
          List<byte[]> ip = new ArrayList<>(List.of(utf8("ip"), utf8("netns"), utf8("exec"), place.name()));
          ip.addAll(tool);
          calls.add(ip);
          calls.add(tool);
        } else {
          List<byte[]> ns = new ArrayList<>(List.of(utf8("nsenter"), cat(utf8("--net="), place.path()), utf8("--")));
          ns.addAll(tool);
          calls.add(ns);
          calls.add(tool);
        }
      }
      case "netns-dir" -> {
        List<byte[]> ns = new ArrayList<>(List.of(utf8("nsenter"), cat(utf8("--net="), place.path()), utf8("--")));
        ns.addAll(tool);
        calls.add(ns);
        calls.add(tool);
      }
      case "pid" -> {
        List<byte[]> ns = new ArrayList<>(List.of(utf8("nsenter"), cat(utf8("--net="), place.path()), utf8("--"),
            utf8("sh"), utf8("-c"), utf8(NetnsCommands.GUARD), utf8("segscope-netns-check"),
            utf8(Long.toString(place.netns().inode()))));
        ns.addAll(tool);
        calls.add(ns);
        if (guardInode == place.netns().inode()) {
          calls.add(tool); // the namespace entered is the one advised for: the guard lets it run
        }
      }
      default -> throw new IllegalStateException(place.kind());
    }
    return calls;
  }

  // ---- the rules, with the hostile names put into the lab inventories

  private static Link renamed(Link l, String name) {
    return new Link(l.ifindex(), name, l.kind(), l.slaveKind(), l.mtu(), l.link(), l.master(), l.linkNetnsId(),
        l.gsoMaxSize(), l.gsoMaxSegs(), l.tsoMaxSize(), l.tsoMaxSegs(), l.groMaxSize(), l.gsoIpv4MaxSize(),
        l.groIpv4MaxSize(), l.xdp(), l.operstate(), l.minMtu(), l.maxMtu(), l.txQueueLength(), l.flags(),
        l.vxlanLink());
  }

  /**
   * {@code base} with namespace {@code from} replaced by {@code ns} (its inode too: the guard checks the
   * inode, so the pass case needs the test's own) and device (from, ifindex) renamed {@code device}.
   */
  private static Inventory place(Inventory base, long from, int ifindex, String device, Netns ns) {
    long to = ns.inode();
    Function<Long, Long> re = x -> x == from ? to : x;
    List<Device> devices = new ArrayList<>();
    for (Device d : base.devices()) {
      if (d.netns() == from) {
        devices.add(new Device(to, ns.name(), d.ifindex() == ifindex ? renamed(d.link(), device) : d.link(),
            d.features()));
      } else {
        devices.add(d);
      }
    }
    List<Netns> namespaces = new ArrayList<>(base.namespaces().stream()
        .filter(n -> n.inode() != from && n.inode() != to).toList());
    namespaces.add(ns);
    Map<Long, Map<Integer, Long>> nsids = new HashMap<>();
    for (Netns n : base.namespaces()) {
      Map<Integer, Long> m = new HashMap<>();
      base.nsids(n.inode()).forEach((k, v) -> m.put(k, re.apply(v)));
      nsids.put(re.apply(n.inode()), m);
    }
    Map<Long, Routing> routing = new HashMap<>();
    base.routing().forEach((k, v) -> routing.put(re.apply(k), v));
    Map<Long, List<Qdisc>> qdiscs = new HashMap<>();
    base.qdiscs().forEach((k, v) -> qdiscs.put(re.apply(k), v));
    return new Inventory(namespaces, devices, nsids, routing, qdiscs, base.readAt());
  }

  /** One rule's case: the inventory it sees, the cost that triggers it, the tool argv it must recommend. */
  record RuleCase(String rule, Inventory inventory, Collection<DeviceCost> costs, List<ToolCall> tools) {}

  /** A command in the advised namespace ({@code inNetns}) or in the root namespace. */
  record ToolCall(boolean inNetns, boolean ip, List<byte[]> argv) {}

  private static XdpDeviceStats xdpCopies(long netns) {
    return new XdpDeviceStats(new DeviceRef(DeviceId.of(netns, 2), "", "rcv0"), "tracepoint", 108000, 0,
        108000L * 65000, 0,
        Optional.empty());
  }

  private List<RuleCase> cases(byte[] dev, Place p) {
    String d = NameCodec.decode(dev);
    long at = p.netns().inode();
    List<byte[]> pinPath = List.of(utf8("/sys/fs/bpf/segscope-xdp-77"));
    return List.of(
        new RuleCase("gso_size_mismatch", place(LabInventories.capped(LabInventories.s1(16384, "lab-snd"), SWITCH, 3),
            SENDER, 2, d, p.netns()),
            Costs.window(Costs.gso(SWITCH, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0)),
            List.of(new ToolCall(true, true, List.of(utf8("ip"), utf8("link"), utf8("set"), utf8("dev"), dev,
                utf8("gso_max_size"), utf8("16384"))))),
        new RuleCase("offload_disabled", place(LabInventories.s2(LabInventories.vethFeatures("tx-tcp-segmentation",
            "tx-tcp6-segmentation")), SWITCH, 2, d, p.netns()),
            Costs.window(Costs.gso(at, 2, "low0", 22000, 1_430_000_000L, Cause.FEATURE_MISSING, 7000, 0)),
            List.of(new ToolCall(true, false, List.of(utf8("ethtool"), utf8("-K"), dev, utf8("tso"), utf8("on"))))),
        // a physical device: on a veth the rule explains instead (driver mode does not help there)
        new RuleCase("generic_xdp_copy", place(LabInventories.s3(LabInventories.generic(77), ""), RECEIVER, 2, d,
            p.netns()), Costs.windowWith(new XdpDeviceStats[] {xdpCopies(at)}),
            List.of(new ToolCall(false, false, Stream.concat(Stream.of("bpftool", "prog", "pin", "id", "77")
                .map(CommandInjectionTest::utf8), pinPath.stream()).toList()),
                new ToolCall(true, false, List.of(utf8("bpftool"), utf8("--"), utf8("net"), utf8("detach"),
                    utf8("xdpgeneric"), utf8("dev"), dev)),
                new ToolCall(true, false, List.of(utf8("bpftool"), utf8("--"), utf8("net"), utf8("attach"),
                    utf8("xdpdrv"), utf8("pinned"), pinPath.get(0), utf8("dev"), dev)),
                new ToolCall(false, false, List.of(utf8("rm"), pinPath.get(0))))),
        new RuleCase("mtu_mismatch", place(LabInventories.routed(1400, 65536), SENDER, 2, d, p.netns()),
            Costs.window(Costs.gso(SWITCH, 3, "rt1", 32066, 2089457356L, Cause.MTU, 8000, 0,
                GsoType.TCP4, Site.IP_OUTPUT_MTU), Costs.gso(at, 2, "snd0", 0, 0, Cause.OTHER, 0, 32066)),
            List.of(new ToolCall(true, true, List.of(utf8("ip"), utf8("link"), utf8("set"), utf8("dev"), dev,
                utf8("mtu"), utf8("1400"))))),
        new RuleCase("tunnel_offload_missing", place(LabInventories.vxlan(
            LabInventories.vethFeatures("tx-udp_tnl-segmentation")), SENDER, 2, d, p.netns()),
            Costs.window(Costs.gso(at, 2, "u0", 32066, 2089457356L, Cause.FEATURE_MISSING, 8000, 0,
                GsoType.UDP_TUNNEL, Site.XMIT)),
            List.of(new ToolCall(true, false, List.of(utf8("ethtool"), utf8("-K"), dev,
                utf8("tx-udp_tnl-segmentation"), utf8("on"))))),
        new RuleCase("qdisc_segmentation", place(LabInventories.shaped(List.of(LabInventories.tbf(0))), SENDER, 2, d,
            p.netns()),
            Costs.window(Costs.gso(at, 2, "snd0", 32066, 2089457356L, Cause.QDISC, 8000, 0, GsoType.TCP4,
                Site.QDISC)),
            List.of(new ToolCall(true, true, Stream.concat(Stream.of("tc", "qdisc", "change", "dev")
                .map(CommandInjectionTest::utf8),
                Stream.concat(Stream.of(dev), Stream.of("root", "handle", "8001:",
                    "tbf", "rate", "12500000bps", "burst", "70780", "limit", "90780").map(CommandInjectionTest::utf8)))
                .toList()))),
        new RuleCase("guest_gso_size_mismatch", place(LabInventories.guest(16384), SWITCH, 3, d, p.netns()),
            Costs.window(Costs.gso(at, 3, "up0", 32066, 2089457356L, Cause.GSO_MAX_SIZE, 8000, 0, GsoType.TCP4,
                Site.XMIT)),
            List.of(new ToolCall(true, true, List.of(utf8("ip"), utf8("link"), utf8("set"), utf8("dev"), dev,
                utf8("gso_max_size"), utf8("65536"))))),
        new RuleCase("offload_disabled", place(LabInventories.withFeatures(LabInventories.s3(LabInventories.NO_XDP,
            "veth"), SENDER, 2, LabInventories.vethFeatures("tx-udp-segmentation")), SENDER, 2, d, p.netns()),
            Costs.window(Costs.gso(at, 2, "snd0", 32066, 2089457356L, Cause.FEATURE_MISSING, 8000, 0,
                GsoType.UDP_L4, Site.XMIT)),
            List.of(new ToolCall(true, false, List.of(utf8("ethtool"), utf8("-K"), dev, utf8("tx-udp-segmentation"),
                utf8("on"))))),
        new RuleCase("wireguard_segmentation", place(LabInventories.wireguard(), SENDER, 2, d, p.netns()),
            Costs.window(Costs.gso(at, 2, "wg0", 32066, 2089457356L, Cause.OTHER, 8000, 0)), List.of()),
        new RuleCase("udp_receive_segmentation", place(LabInventories.s3(LabInventories.NO_XDP, "veth"), RECEIVER, 2, d,
            p.netns()),
            Costs.window(Costs.gso(at, 2, "rcv0", 32066, 2089457356L, Cause.OTHER, 8000, 0, GsoType.UDP_L4,
                Site.UDP_RX)),
            List.of()),
        new RuleCase("big_tcp_headroom", place(LabInventories.s3(LabInventories.NO_XDP, ""), RECEIVER, 2, d, p.netns()),
            Costs.window(Costs.gso(at, 2, "rcv0", 0, 0, Cause.OTHER, 0, 90000)),
            List.of(new ToolCall(true, true, List.of(utf8("ip"), utf8("link"), utf8("set"), utf8("dev"), dev,
                utf8("gso_max_size"), utf8("185000"))))));
  }

  /** A command to run and what must reach the programs. */
  record Trial(String what, Command command, List<List<byte[]>> expected, int exitCode) {}

  @Test
  void noRecommendedCommandInjectsAndEveryProgramGetsTheExactBytes() throws Exception {
    List<Trial> trials = new ArrayList<>();
    for (byte[] dev : DEVICE_NAMES) {
      for (long inode : new long[] {ownNetns, ownNetns + 1}) { // the guard's pass and refuse cases
        for (Place p : places(inode)) {
          if (inode != ownNetns && !p.kind().equals("pid")) {
            continue;
          }
          for (RuleCase rc : cases(dev, p)) {
            List<Finding> f = new Recommender().evaluate(rc.costs(),
                AdviceContext.of(rc.inventory(), AdviceContext.Thresholds.DEFAULT, true, rc.costs()));
            String what = rc.rule() + " dev " + NameCodec.display(NameCodec.decode(dev)) + " in " + p.kind() + " "
                + NameCodec.display(NameCodec.decode(p.name())) + " (inode " + inode + ")";
            assertThat(f).as(what).singleElement().extracting(Finding::rule).isEqualTo(rc.rule());
            List<Command> commands = f.get(0).commands();
            assertThat(commands).as(what).hasSameSizeAs(rc.tools());
            for (int i = 0; i < commands.size(); i++) {
              ToolCall t = rc.tools().get(i);
              Place at = t.inNetns() ? p : new Place("root", null, new byte[0], new byte[0]);
              List<List<byte[]>> exp = expected(at, ownNetns, t.ip(), t.argv());
              assertThat(exact(commands.get(i).bytes())).as("%s: argv of command %d", what, i)
                  .isEqualTo(exact(exp.get(0)));
              assertThat(commands.get(i).shell().codePoints().allMatch(c -> c == '\n' || NameCodec.isPrintable(c)))
                  .as("%s: the command text shows no control character: %s", what, commands.get(i).display()).isTrue();
              boolean refused = at.kind().equals("pid") && inode != ownNetns;
              trials.add(new Trial(what + " command " + i, commands.get(i), exp, refused ? 1 : 0));
            }
          }
        }
      }
    }
    List<Result> results = runAll(trials);
    assertThat(results).hasSameSizeAs(trials);
    for (int i = 0; i < trials.size(); i++) {
      Trial t = trials.get(i);
      Result r = results.get(i);
      assertThat(r.exitCode()).as("%s: exit code of sh -c %s", t.what(), t.command().display()).isEqualTo(t.exitCode());
      assertThat(r.calls().stream().map(CommandInjectionTest::exact).toList())
          .as("%s: argv the programs received from sh -c %s", t.what(), t.command().display())
          .isEqualTo(t.expected().stream().map(CommandInjectionTest::exact).toList());
    }
    assertNoInjectedFile();
    System.out.printf("%d commands of %d rules run through sh -c: none injected, every argv exact%n", trials.size(),
        Recommender.RULES.size());
    // every rule segscope has is in the matrix
    assertThat(cases(utf8("eth0"), places(ownNetns).get(0)).stream().map(RuleCase::rule).distinct())
        .containsExactlyInAnyOrderElementsOf(Recommender.RULES.stream().map(Rule::name).toList());
  }

  @Test
  void theDetectorCatchesANaiveCommand() throws Exception {
    // the string segscope used to build: the injection must show up, or the test above proves nothing
    Path canary = work.resolve("c");
    Files.deleteIfExists(canary);
    List<Result> r = runStrings(List.of("ip link set dev $(touch${IFS}c) gso_max_size 16384"));
    assertThat(canary).as("the naive command ran touch c").exists();
    Files.delete(canary);
    assertThat(r.get(0).calls()).singleElement().satisfies(argv -> assertThat(new String(argv.get(4),
        StandardCharsets.UTF_8)).isEqualTo("gso_max_size"));
  }

  private void assertNoInjectedFile() throws IOException {
    try (Stream<Path> all = Files.walk(tmp)) {
      List<Path> files = all.filter(p -> !p.startsWith(shims) && !p.startsWith(netnsDir) && !p.startsWith(logs)
          && !p.equals(tmp) && !p.equals(work) && !p.getFileName().toString().startsWith("commands")).toList();
      assertThat(files).as("files created by the commands").isEmpty();
    }
  }

  // ---- running: driver shells, two at a time (xargs -P 2), each run a batch of commands, every one
  // as `sh -c COMMAND` (the command bytes passed exactly, through xargs -0), into a log of the batch's
  // own (the shims append to $SHIM_LOG), marking where each command ends

  record Result(int exitCode, List<List<byte[]>> calls) {}

  /** Commands one driver shell runs (7,000 one shell each took 79 s here; batched, two at a time, ~25 s). */
  private static final int BATCH = 100;

  private List<Result> runAll(List<Trial> trials) throws Exception {
    return run(trials.stream().map(t -> t.command().shell()).toList());
  }

  private List<Result> runStrings(List<String> commands) throws Exception {
    return run(commands);
  }

  private List<Result> run(List<String> commands) throws Exception {
    Path input = tmp.resolve("commands.bin");
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    for (int i = 0; i < commands.size(); i++) {
      in.writeBytes(commands.get(i).getBytes(StandardCharsets.UTF_8));
      in.write(0);
      in.writeBytes(utf8(Integer.toString(i)));
      in.write(0);
    }
    Files.write(input, in.toByteArray());
    deleteTree(logs);
    Files.createDirectories(logs);
    String driver = "SHIM_LOG=\"$SHIM_LOG_DIR/$2.log\"; export SHIM_LOG\n"
        + "while [ $# -ge 2 ]; do sh -c \"$1\"; printf 'mark\\0%s\\0%s\\0' \"$2\" \"$?\" >> \"$SHIM_LOG\"; shift 2; done";
    run(List.of("xargs", "-0", "-n", Integer.toString(2 * BATCH), "-P", "2", "-a", input.toString(), "/bin/sh", "-c",
        driver, "driver"), work);
    Map<Integer, Result> byIndex = new HashMap<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(logs)) {
      for (Path batch : ds) {
        parse(Files.readAllBytes(batch), byIndex);
      }
    }
    List<Result> out = new ArrayList<>();
    for (int i = 0; i < commands.size(); i++) {
      assertThat(byIndex).as("the end of command %d was marked", i).containsKey(i);
      out.add(byIndex.get(i));
    }
    return out;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private void run(List<String> argv, Path dir) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    if (dir != null) {
      pb.directory(dir.toFile());
    }
    pb.environment().put("PATH", shims + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().put("SHIM_LOG_DIR", logs.toString());
    pb.environment().put("SHIM_LOG", logs.resolve("setup.log").toString());
    pb.environment().put("HOME", work.toString());
    pb.environment().remove("ENV");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", argv.get(0), out).isIn(0, 123); // xargs: 123 when a command exited 1-125
  }

  /** One batch's log: each command's calls up to its mark, put at the command's index. */
  private static void parse(byte[] log, Map<Integer, Result> byIndex) {
    List<byte[]> tokens = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < log.length; i++) {
      if (log[i] == 0) {
        tokens.add(Arrays.copyOfRange(log, start, i));
        start = i + 1;
      }
    }
    assertThat(start).as("the log ends with a complete record").isEqualTo(log.length);
    List<List<byte[]>> calls = new ArrayList<>();
    int i = 0;
    while (i < tokens.size()) {
      String head = new String(tokens.get(i), StandardCharsets.UTF_8);
      if (head.equals("mark")) {
        int index = Integer.parseInt(new String(tokens.get(i + 1), StandardCharsets.UTF_8));
        assertThat(byIndex.put(index, new Result(Integer.parseInt(new String(tokens.get(i + 2),
            StandardCharsets.UTF_8)), calls))).as("command %d marked once", index).isNull();
        calls = new ArrayList<>();
        i += 3;
      } else {
        int argc = Integer.parseInt(head);
        calls.add(new ArrayList<>(tokens.subList(i + 1, i + 2 + argc)));
        i += 2 + argc;
      }
    }
    assertThat(calls).as("calls after the batch's last mark").isEmpty();
  }

  /** argv in the name form: injective, so equal forms are equal bytes, and readable in a failure. */
  private static List<String> exact(List<byte[]> argv) {
    return argv.stream().map(NameCodec::decode).toList();
  }
}
