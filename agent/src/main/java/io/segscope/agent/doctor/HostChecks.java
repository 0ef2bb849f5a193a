package io.segscope.agent.doctor;

import io.segscope.probes.bcc.Bcc;
import io.segscope.probes.bcc.BccException;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.btf.BtfException;
import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.ksym.KallsymsException;
import io.segscope.probes.program.CallSites;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The host checks of {@code segscope doctor}, each a small function of what it reads. */
final class HostChecks {
  static final Path OSRELEASE = Path.of("/proc/sys/kernel/osrelease");
  static final Path MODULES = Path.of("/lib/modules");
  static final Path MOUNTS = Path.of("/proc/self/mounts");
  private static final Pattern UTS_RELEASE = Pattern.compile("#define\\s+UTS_RELEASE\\s+\"([^\"]+)\"");

  private HostChecks() {}

  /** {@code uname -r}. */
  static String kernelRelease() {
    try {
      return Files.readString(OSRELEASE, StandardCharsets.US_ASCII).strip();
    } catch (IOException e) {
      return System.getProperty("os.version");
    }
  }

  static Check btf(Path file) {
    if (!Files.exists(file)) {
      return Check.fail("btf", file + " is missing: the kernel was built without CONFIG_DEBUG_INFO_BTF, and "
          + "segscope reads every kernel struct layout from it");
    }
    try {
      long size = Files.size(file);
      Btf btf = Btf.load(file);
      return Check.ok("btf", file + ": " + size + " bytes, " + btf.typeCount() + " types");
    } catch (IOException | BtfException e) {
      return Check.fail("btf", "read " + file + ": " + e.getMessage());
    }
  }

  /**
   * The headers BCC compiles against: {@code <modules>/<release>/build}, and whether their release
   * ({@code include/generated/utsrelease.h}, else {@code include/config/kernel.release}) is the
   * running kernel's. A mismatch is a warning only: segscope takes struct layouts from BTF.
   */
  static Check headers(String release, Path modulesRoot) {
    Path build = modulesRoot.resolve(release).resolve("build");
    if (!Files.isDirectory(build)) {
      return Check.fail("headers", build + " is missing: BCC compiles its programs against kernel headers "
          + "(install linux-headers-" + release + " or the newest linux-headers, or run scripts/setup)");
    }
    String target;
    try {
      target = build.toRealPath().toString();
    } catch (IOException e) {
      target = build.toString();
    }
    Optional<String> headers = headersRelease(build);
    String where = build + (target.equals(build.toString()) ? "" : " -> " + target);
    if (headers.isEmpty()) {
      return Check.warn("headers", where + ": release unknown (no utsrelease.h or kernel.release)");
    }
    if (headers.get().equals(release)) {
      return Check.ok("headers", where + ": " + headers.get() + ", matches the running kernel");
    }
    return Check.warn("headers", where + ": " + headers.get() + ", does not match " + release
        + " (fine: BCC compiles against them, struct layouts come from BTF)");
  }

  static Optional<String> headersRelease(Path build) {
    try {
      Path uts = build.resolve("include/generated/utsrelease.h");
      if (Files.isRegularFile(uts)) {
        Matcher m = UTS_RELEASE.matcher(Files.readString(uts, StandardCharsets.US_ASCII));
        if (m.find()) {
          return Optional.of(m.group(1));
        }
      }
      Path rel = build.resolve("include/config/kernel.release");
      if (Files.isRegularFile(rel)) {
        return Optional.of(Files.readString(rel, StandardCharsets.US_ASCII).strip());
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** tracefs, debugfs and bpffs from /proc/self/mounts lines. */
  static List<Check> mounts(List<String> mountLines) {
    Optional<String> tracefs = mountPoint(mountLines, "tracefs");
    Optional<String> debugfs = mountPoint(mountLines, "debugfs");
    Optional<String> bpffs = mountPoint(mountLines, "bpf");
    return List.of(
        tracefs.map(p -> Check.ok("tracefs", "mounted on " + p)).orElseGet(() -> Check.fail("tracefs",
            "not mounted: tracepoints (every mode uses some) need it: mount -t tracefs nodev /sys/kernel/tracing")),
        debugfs.map(p -> Check.ok("debugfs", "mounted on " + p)).orElseGet(() -> Check.warn("debugfs",
            "not mounted: fine while tracefs is on /sys/kernel/tracing")),
        bpffs.map(p -> Check.ok("bpffs", "mounted on " + p)).orElseGet(() -> Check.warn("bpffs",
            "not mounted: segscope pins nothing, but other BPF tools expect /sys/fs/bpf")));
  }

  private static Optional<String> mountPoint(List<String> lines, String fsType) {
    for (String line : lines) {
      String[] f = line.split(" ");
      if (f.length > 2 && f[2].equals(fsType)) {
        return Optional.of(f[1]);
      }
    }
    return Optional.empty();
  }

  static List<String> readMounts() {
    try {
      return Files.readAllLines(MOUNTS);
    } catch (IOException e) {
      return List.of();
    }
  }

  static Check capabilities(List<String> missing) {
    return missing.isEmpty() ? Check.ok("capabilities", "CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYSLOG present")
        : Check.fail("capabilities", "missing " + String.join(", ", missing) + " (run as root, or grant these)");
  }

  static Check libbcc() {
    String version = Bcc.libraryVersion();
    try {
      Bcc.requireCompatible();
      return Check.ok("libbcc", version + " (binding written for " + Bcc.SUPPORTED_SERIES + ".x)");
    } catch (BccException e) {
      return Check.fail("libbcc", e.getMessage());
    }
  }

  static Check kallsyms() {
    try {
      Kallsyms k = Kallsyms.load();
      return Check.ok("kallsyms", "/proc/kallsyms readable, " + k.size() + " symbols with addresses");
    } catch (KallsymsException e) {
      return Check.fail("kallsyms", e.getMessage());
    }
  }

  /** Where each software-segmentation call site is in the running kernel (tracepoint mode maps them). */
  static Check callSites() {
    try {
      return callSites(CallSites.resolve(Kallsyms.load()));
    } catch (KallsymsException e) {
      return Check.fail("call sites", "resolve segmentation call sites: " + e.getMessage());
    }
  }

  /**
   * Pure: one line per call site (resolved, inlined into which function, or absent). WARN when
   * validate_xmit_skb is absent: tracepoint mode then sees no segmentation at the transmit site.
   */
  static Check callSites(CallSites sites) {
    long resolved = sites.resolutions().stream().filter(CallSites.Resolution::resolved).count();
    StringBuilder d = new StringBuilder();
    d.append(resolved).append(" of ").append(sites.resolutions().size())
        .append(" segmentation call sites found; tracepoint mode does not see segmentation at an absent one"
            + " (kprobe mode reports it as site other)");
    for (CallSites.Resolution r : sites.resolutions()) {
      d.append('\n').append(r.describe());
    }
    return sites.hasXmit() ? Check.ok("call sites", d.toString())
        : Check.warn("call sites", "validate_xmit_skb not found: tracepoint mode cannot see segmentation on"
            + " transmit; " + d);
  }
}
