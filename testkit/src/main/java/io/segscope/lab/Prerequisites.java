package io.segscope.lab;

import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a lab test needs from the machine; a missing one is handled by the one policy of
 * {@link Requirement} (skipped with the reason, failed under {@code CI=true}).
 */
public final class Prerequisites {
  /** The tools every lab needs ({@code ss}, from iproute2 like {@code ip}, tells when iperf3 listens). */
  public static final List<String> LAB_TOOLS = List.of("ip", "ethtool", "iperf3", "ss");

  private Prerequisites() {
  }

  /** Why the namespace lab cannot run here, or empty when it can (root and {@link #LAB_TOOLS}). */
  public static Optional<String> labMissing() {
    List<String> missing = new ArrayList<>();
    if (!isRoot()) {
      missing.add("root (effective uid 0) to create network namespaces");
    }
    for (String tool : LAB_TOOLS) {
      if (Tools.find(tool).isEmpty()) {
        missing.add("the `" + tool + "` tool");
      }
    }
    return missing.isEmpty() ? Optional.empty()
        : Optional.of("namespace lab needs " + String.join(", ", missing));
  }

  /** Skips (or on CI fails) the current test unless the namespace lab can run here. */
  public static void requireLab() {
    labMissing().ifPresent(Prerequisites::unmet);
  }

  /** Skips (or on CI fails) the current test unless it runs as root. */
  public static void requireRoot(String why) {
    if (!isRoot()) {
      unmet(why + " (effective uid 0)");
    }
  }

  /** Skips (or on CI fails) the current test unless a clang that targets BPF is installed. */
  public static void requireClang() {
    if (Tools.clang().isEmpty()) {
      unmet("building the XDP test object needs clang with the BPF target (apt-get install clang)");
    }
  }

  /** Skips (or on CI fails) the current test unless executable {@code tool} is installed. */
  public static void requireTool(String tool, String why) {
    if (Tools.find(tool).isEmpty()) {
      unmet(why + " needs the `" + tool + "` tool");
    }
  }

  /** Applies the policy to an unmet prerequisite ({@link Requirement#unmet}). */
  public static void unmet(String reason) {
    Requirement.unmet(reason);
  }

  static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          String[] f = line.substring(4).trim().split("\\s+");
          return f.length > 1 && f[1].equals("0");
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }
}
