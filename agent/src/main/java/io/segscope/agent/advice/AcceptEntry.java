package io.segscope.agent.advice;

import io.segscope.exporters.model.DeviceRef;
import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;

/**
 * One operator intent: {@code RULE:NETNS/DEVICE-GLOB} ({@code --advice-accept}, or an {@code accept}
 * entry of the advice configuration file). A finding of that rule ({@code *}: any rule) is accepted
 * when one of its devices (where the cost is measured, or a device its commands would change) is in
 * a namespace matching NETNS and has a name matching DEVICE-GLOB. NETNS is matched against the
 * namespace's name (under /run/netns or a --netns-dir), its inode in decimal, and, for the host's
 * own namespace, {@code root}. Globs are Java's ({@link FileSystems#getPathMatcher glob:} syntax:
 * {@code *}, {@code ?}, {@code [a-z]}, {@code {a,b}}, {@code \} to escape) against segscope's name form
 * ({@code \xHH} for bytes that are not UTF-8).
 *
 * @param rule a rule name or {@code *}
 * @param netns the namespace glob
 * @param device the device glob
 * @param reason why (free text, may be ""), shown in the API
 * @param source where it came from: the flag's text, or the file and entry number
 */
public record AcceptEntry(String rule, String netns, String device, String reason, String source) {

  public AcceptEntry {
    if (!rule.equals("*") && Recommender.RULES.stream().noneMatch(r -> r.name().equals(rule))) {
      throw new IllegalArgumentException("unknown rule '" + rule + "' (rules: *, "
          + String.join(", ", Recommender.RULES.stream().map(Rule::name).toList()) + ")");
    }
    matcher(netns, "namespace");
    matcher(device, "device");
    if (reason == null) {
      reason = "";
    }
  }

  /** Parses {@code RULE:NETNS/DEVICE-GLOB}; a bad form, rule or glob throws with the reason. */
  public static AcceptEntry parse(String text, String reason, String source) {
    int colon = text.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected RULE:NETNS/DEVICE-GLOB, e.g. offload_disabled:*/vxlan.calico");
    }
    int slash = text.indexOf('/', colon + 1);
    if (slash < 0) {
      throw new IllegalArgumentException("expected RULE:NETNS/DEVICE-GLOB: no '/' between the namespace and the "
          + "device");
    }
    String netns = text.substring(colon + 1, slash);
    String device = text.substring(slash + 1);
    if (netns.isEmpty() || device.isEmpty()) {
      throw new IllegalArgumentException("expected RULE:NETNS/DEVICE-GLOB: the namespace and the device glob may "
          + "not be empty (use * for any)");
    }
    return new AcceptEntry(text.substring(0, colon), netns, device, reason, source);
  }

  private static PathMatcher matcher(String glob, String what) {
    if (glob == null || glob.isEmpty()) {
      throw new IllegalArgumentException("the " + what + " glob is empty (use * for any)");
    }
    if (glob.indexOf('/') >= 0) {
      throw new IllegalArgumentException("the " + what + " glob '" + glob + "' holds a '/', which no " + what
          + " name can");
    }
    try {
      return FileSystems.getDefault().getPathMatcher("glob:" + glob);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("the " + what + " glob '" + glob + "' is not a glob: " + e.getDescription()
          + " at index " + e.getIndex());
    }
  }

  private static boolean matches(String glob, String name) {
    if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
      return false;
    }
    try {
      return matcher(glob, "name").matches(Path.of(name));
    } catch (InvalidPathException e) {
      return false;
    }
  }

  /** Whether this entry accepts {@code f}; {@code rootNetns} is the host namespace's inode. */
  public boolean accepts(Finding f, long rootNetns) {
    if (!rule.equals("*") && !rule.equals(f.rule())) {
      return false;
    }
    for (DeviceRef d : f.devices()) {
      if (matchesNetns(d, rootNetns) && matches(device, d.device())) {
        return true;
      }
    }
    return false;
  }

  private boolean matchesNetns(DeviceRef d, long rootNetns) {
    List<String> names = new ArrayList<>(List.of(Long.toString(d.netns())));
    if (!d.netnsName().isEmpty()) {
      names.add(d.netnsName());
    }
    if (d.netns() == rootNetns) {
      names.add("root");
    }
    return names.stream().anyMatch(n -> matches(netns, n));
  }

  /** The entry as the flag writes it. */
  public String text() {
    return rule + ":" + netns + "/" + device;
  }
}
