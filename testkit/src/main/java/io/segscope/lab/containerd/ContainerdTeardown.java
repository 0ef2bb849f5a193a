package io.segscope.lab.containerd;

import io.segscope.lab.Netns;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a {@link PrivateContainerd} leaves on the host beyond containerd itself, and its removal once
 * containerd has stopped: shims and pause processes that outlived their sandbox, mounts under its
 * directory, the CNI bridge, the lab's cgroups, the /run/containerd directories it made; then
 * {@link #leftovers} names whatever of it remains. The sandboxes and pause processes are noted as
 * they are made.
 */
final class ContainerdTeardown {
  private final Netns node;
  private final Path dir;
  private final Path socket;
  private final Path netnsDir;
  /** The cgroup under which this lab's pods live, in every hierarchy. */
  private final String cgroupRoot;
  private final boolean runContainerdExisted;
  private final List<String> sandboxIds = new ArrayList<>();
  private final List<Long> pausePids = new ArrayList<>();

  ContainerdTeardown(Netns node, Path dir, Path socket, Path netnsDir, String cgroupRoot,
      boolean runContainerdExisted) {
    this.node = node;
    this.dir = dir;
    this.socket = socket;
    this.netnsDir = netnsDir;
    this.cgroupRoot = cgroupRoot;
    this.runContainerdExisted = runContainerdExisted;
  }

  /** A sandbox was made: its shim socket is checked gone. */
  synchronized void sandbox(String id) {
    sandboxIds.add(id);
  }

  /** A sandbox's pause process: ended if it outlives containerd. */
  synchronized void pause(long pid) {
    pausePids.add(pid);
  }

  /**
   * Removes what remains once containerd has stopped (unmounting the shared namespace directory when
   * {@code netnsDirShared}); the failures, each said in a line, empty when all went.
   */
  synchronized List<String> clean(boolean netnsDirShared) throws Exception {
    List<String> failures = new ArrayList<>();
    // a shim whose sandbox could not be removed outlives containerd: end it, and its pause process
    for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
      if (HostMounts.cmdline(h.pid()).contains(socket.toString())
          || pausePids.contains(h.pid()) && HostMounts.isPause(h.pid())) {
        failures.add("process " + h.pid() + " (" + HostMounts.cmdline(h.pid()) + ") outlived its sandbox: killed");
        h.destroyForcibly();
      }
    }
    if (netnsDirShared) {
      try {
        PrivateContainerd.exec(List.of("umount", netnsDir.toString()));
      } catch (IOException e) {
        failures.add("unmount the shared " + netnsDir + ": " + e.getMessage());
      }
    }
    for (String m : HostMounts.mountsUnder(dir)) {
      failures.add("mount " + m + " was left: unmounted");
      new ProcessBuilder("umount", "-l", m).start().waitFor(10, TimeUnit.SECONDS);
    }
    failures.addAll(removeCgroups());
    // CNI DEL leaves the bridge (it may serve other pods): the last pod is gone, so it goes too
    if (Files.exists(Path.of("/run/netns", node.name()))
        && PrivateContainerd.exec(List.of("ip", "-n", node.name(), "-o", "link", "show")).contains(": cni0:")) {
      try {
        PrivateContainerd.exec(List.of("ip", "-n", node.name(), "link", "del", "cni0"));
      } catch (IOException e) {
        failures.add("delete the CNI bridge cni0 in " + node.name() + ": " + e.getMessage());
      }
    }
    if (!runContainerdExisted) {
      for (Path p : List.of(Path.of("/run/containerd/s"), Path.of("/run/containerd"))) {
        try {
          Files.deleteIfExists(p); // only when empty
        } catch (DirectoryNotEmptyException e) {
          // another containerd (a lab beside this one) still has its shim sockets there
        } catch (IOException e) {
          failures.add("remove " + p + " (made by this containerd): " + e);
        }
      }
    }
    return failures;
  }

  synchronized List<String> leftovers() throws Exception {
    List<String> out = new ArrayList<>();
    for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
      String cmd = HostMounts.cmdline(h.pid());
      if (cmd.contains(dir.toString()) || pausePids.contains(h.pid()) && HostMounts.isPause(h.pid())) {
        out.add("process " + h.pid() + ": " + cmd);
      }
    }
    for (String m : HostMounts.mountsUnder(dir)) {
      out.add("mount " + m);
    }
    if (Files.isDirectory(netnsDir)) {
      try (Stream<Path> s = Files.list(netnsDir)) {
        s.forEach(p -> out.add("netns file " + p));
      }
    }
    if (Files.exists(Path.of("/run/netns", node.name()))) {
      String links = PrivateContainerd.exec(List.of("ip", "-n", node.name(), "-o", "link", "show"));
      for (String line : links.split("\n")) {
        String dev = line.replaceFirst("^\\d+: ([^:@]+).*$", "$1");
        if (!line.isBlank() && !dev.equals("lo")) {
          out.add("device " + dev + " in " + node.name());
        }
      }
      for (String save : List.of("iptables-save", "ip6tables-save")) {
        if (Tools.find(save).isPresent()) {
          String rules = PrivateContainerd.exec(List.of("nsenter", "--net=/run/netns/" + node.name(), save));
          rules.lines().filter(l -> l.startsWith("-A "))
              .forEach(l -> out.add(save + " rule in " + node.name() + ": " + l));
        }
      }
    }
    for (Path root : HostMounts.cgroupMounts()) {
      Path mine = root.resolve(cgroupRoot.substring(1));
      if (Files.exists(mine)) {
        out.add("cgroup " + mine);
      }
    }
    for (String id : sandboxIds) {
      Path shim = Path.of("/run/containerd/s", shimSocketName(id));
      if (Files.exists(shim)) {
        out.add("shim socket " + shim + " of sandbox " + id);
      }
    }
    return out;
  }

  /** containerd 1.6 names a shim's socket by sha256(containerd's socket path / namespace / id). */
  private String shimSocketName(String id) throws Exception {
    byte[] d = MessageDigest.getInstance("SHA-256")
        .digest((socket + "/k8s.io/" + id).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d);
  }

  private List<String> removeCgroups() {
    List<String> failures = new ArrayList<>();
    for (Path root : HostMounts.cgroupMounts()) {
      Path mine = root.resolve(cgroupRoot.substring(1));
      if (!Files.isDirectory(mine)) {
        continue;
      }
      try (Stream<Path> s = Files.walk(mine)) {
        for (Path d : s.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(d); // rmdir: only an empty cgroup goes
        }
      } catch (IOException e) {
        failures.add("remove cgroup " + mine + ": " + e);
      }
    }
    return failures;
  }
}
