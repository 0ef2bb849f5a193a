package io.segscope.agent.advice;

import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.inventory.wire.PathBytes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Commands that run in a given network namespace, as argv ({@link Command}): names are arguments
 * of their own, and a name that begins with '-' is never read as an option (it always follows
 * {@code dev}, {@code -n} or {@code -K}, or comes after {@code --}: iproute2's {@code ip} and {@code tc}
 * take the word after {@code dev} and {@code -n} as it is).
 *
 * <ul>
 *   <li>the root namespace: the command as it is;
 *   <li>a namespace named under /run/netns: {@code ip -n NAME ...}, {@code tc -n NAME ...},
 *       {@code ip netns exec NAME ...} (iproute2 resolves NAME only there), or
 *       {@code nsenter --net=/run/netns/NAME -- ...};
 *   <li>a namespace bind-mounted elsewhere (a {@code --netns-dir}): {@code nsenter --net=PATH -- ...};
 *   <li>a namespace known only as /proc/PID/ns/net (a container's): {@code nsenter --net=PATH --}
 *       then a guard, {@code sh -c GUARD segscope-netns-check INODE PROGRAM ARGS...}, that refuses
 *       to run (exit 1, a message on stderr) unless the namespace entered has the inode the
 *       recommendation was made for: the PID may have exited and been reused by a process in
 *       another namespace. The guard's script is constant; the inode and the command reach it as
 *       positional parameters, never as script text.
 * </ul>
 */
final class NetnsCommands {
  static final Path RUN_NETNS = Path.of("/run/netns");
  private static final Pattern PID_PATH = Pattern.compile("/proc/[0-9]+/ns/net");

  /**
   * The guard's script: {@code $1} is the expected inode, the rest is the command. Constant text,
   * no name in it, no backslash (so its name form is its text).
   */
  static final String GUARD = "i=$(stat -L -c %i /proc/self/ns/net) || exit 1; if [ \"$i\" != \"$1\" ]; then "
      + "echo \"segscope: refusing to run: the network namespace entered is inode $i, not $1: the process that "
      + "held it is gone\" >&2; exit 1; fi; shift; exec \"$@\"";
  /** The guard's {@code $0}: what ps and error messages call it. */
  static final String GUARD_NAME = "segscope-netns-check";

  private NetnsCommands() {}

  /** How commands reach a namespace. */
  enum Entry { ROOT, RUN_NETNS_NAME, PATH, PID_PATH }

  static Entry entry(Netns ns) {
    if (ns.root()) {
      return Entry.ROOT;
    }
    Path p = ns.path();
    if (!ns.name().isEmpty() && RUN_NETNS.equals(p.getParent())) {
      // iproute2 opens /run/netns/NAME for -n and netns exec; the name (its file name) is the argument
      return Entry.RUN_NETNS_NAME;
    }
    if (PID_PATH.matcher(new String(PathBytes.of(p), StandardCharsets.ISO_8859_1)).matches()) {
      return Entry.PID_PATH;
    }
    return Entry.PATH;
  }

  /** {@code ip link set dev DEV SETTINGS...} in that namespace. */
  static Command ipLinkSet(Netns ns, String dev, List<String> settings) {
    List<byte[]> set = new ArrayList<>(List.of(Command.text("link"), Command.text("set"), Command.text("dev"),
        Command.name(dev)));
    settings.forEach(s -> set.add(Command.text(s)));
    if (entry(ns) == Entry.RUN_NETNS_NAME) {
      List<byte[]> argv = new ArrayList<>(List.of(Command.text("ip"), Command.text("-n"), Command.name(ns.name())));
      argv.addAll(set);
      return Command.of(argv);
    }
    List<byte[]> argv = new ArrayList<>(List.of(Command.text("ip")));
    argv.addAll(set);
    return Command.of(enter(ns, argv));
  }

  /**
   * {@code tc qdisc change dev DEV ARGS...} in that namespace ({@code tc -n NAME ...} for a named one).
   * {@code args} are constants (parent, handle, kind, parameters): the device is the only name.
   */
  static Command tcQdiscChange(Netns ns, String dev, List<String> args) {
    List<byte[]> rest = new ArrayList<>(List.of(Command.text("qdisc"), Command.text("change"), Command.text("dev"),
        Command.name(dev)));
    args.forEach(a -> rest.add(Command.text(a)));
    if (entry(ns) == Entry.RUN_NETNS_NAME) {
      List<byte[]> argv = new ArrayList<>(List.of(Command.text("tc"), Command.text("-n"), Command.name(ns.name())));
      argv.addAll(rest);
      return Command.of(argv);
    }
    List<byte[]> argv = new ArrayList<>(List.of(Command.text("tc")));
    argv.addAll(rest);
    return Command.of(enter(ns, argv));
  }

  /** {@code ethtool -K DEV FEATURES...} in that namespace (ethtool takes the word after -K as the device). */
  static Command ethtoolK(Netns ns, String dev, List<String> features) {
    List<byte[]> argv = new ArrayList<>(List.of(Command.text("ethtool"), Command.text("-K"), Command.name(dev)));
    features.forEach(f -> argv.add(Command.text(f)));
    if (entry(ns) == Entry.RUN_NETNS_NAME) {
      List<byte[]> exec = new ArrayList<>(List.of(Command.text("ip"), Command.text("netns"), Command.text("exec"),
          Command.name(ns.name())));
      exec.addAll(argv);
      return Command.of(exec);
    }
    return Command.of(enter(ns, argv));
  }

  /**
   * {@code bpftool -- ARGS...} in that namespace through {@code nsenter --net}, which, unlike
   * {@code ip netns exec}, leaves the mount namespace alone: /sys/fs/bpf (bpffs pins) stays
   * visible. The {@code --} ends bpftool's option parsing (it permutes: a device named {@code -j}
   * after {@code dev} would otherwise be read as an option).
   */
  static Command bpftool(Netns ns, List<byte[]> args) {
    List<byte[]> argv = new ArrayList<>(List.of(Command.text("bpftool"), Command.text("--")));
    argv.addAll(args);
    return Command.of(enter(ns, argv));
  }

  /** {@code argv} entered into the namespace with nsenter (and, for a PID path, the inode guard). */
  private static List<byte[]> enter(Netns ns, List<byte[]> argv) {
    Entry e = entry(ns);
    if (e == Entry.ROOT) {
      return argv;
    }
    byte[] path = e == Entry.RUN_NETNS_NAME ? concat(Command.text("/run/netns/"), Command.name(ns.name()))
        : PathBytes.of(ns.path());
    List<byte[]> out = new ArrayList<>(List.of(Command.text("nsenter"), concat(Command.text("--net="), path),
        Command.text("--")));
    if (e == Entry.PID_PATH) {
      out.addAll(List.of(Command.text("sh"), Command.text("-c"), Command.text(GUARD), Command.text(GUARD_NAME),
          Command.text(Long.toString(ns.inode()))));
    }
    out.addAll(argv);
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
