package io.segscope.agent.workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which CRI sockets to ask. Given none, the well-known sockets of containerd (also k3s') and CRI-O,
 * those that exist at the time of asking; given {@code none}, no runtime at all.
 */
public record CriEndpoints(List<Path> explicit, boolean disabled, List<Path> candidates) {
  /** Where containerd, k3s' containerd and CRI-O listen by default. */
  public static final List<Path> DEFAULTS = List.of(Path.of("/run/containerd/containerd.sock"),
      Path.of("/run/k3s/containerd/containerd.sock"), Path.of("/run/crio/crio.sock"));

  /**
   * @param explicit the sockets asked for ({@code --cri-endpoint}); empty: the candidates that exist
   * @param disabled ask no runtime
   * @param candidates the sockets looked for when none is asked for ({@link #DEFAULTS})
   */
  public CriEndpoints {
    explicit = List.copyOf(explicit);
    candidates = List.copyOf(candidates);
  }

  public static CriEndpoints defaults() {
    return new CriEndpoints(List.of(), false, DEFAULTS);
  }

  public static CriEndpoints none() {
    return new CriEndpoints(List.of(), true, DEFAULTS);
  }

  /**
   * From {@code --cri-endpoint} values: socket paths, also as {@code unix://PATH} (crictl's form);
   * {@code none} alone turns CRI off.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public static CriEndpoints parse(List<String> values) {
    if (values.isEmpty()) {
      return defaults();
    }
    if (values.contains("none")) {
      if (values.size() > 1) {
        throw new IllegalArgumentException("--cri-endpoint none cannot be combined with other endpoints");
      }
      return none();
    }
    List<Path> paths = new ArrayList<>();
    for (String v : values) {
      String p = v.startsWith("unix://") ? v.substring("unix://".length()) : v;
      if (p.isEmpty() || !p.startsWith("/") || p.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("--cri-endpoint '" + v
            + "': expected an absolute socket path or unix:///path (or none)");
      }
      Path path = Path.of(p).normalize();
      if (!paths.contains(path)) {
        paths.add(path);
      }
    }
    return new CriEndpoints(paths, false, DEFAULTS);
  }

  /** The sockets to ask now: the explicit ones (existing or not), else the defaults that exist. */
  public List<Path> current() {
    if (disabled) {
      return List.of();
    }
    if (!explicit.isEmpty()) {
      return explicit;
    }
    return candidates.stream().filter(Files::exists).toList();
  }

  /** containerd or cri-o, from the socket's path ("" when it does not say). */
  static String runtimeOf(Path socket) {
    String s = socket.toString();
    if (s.contains("crio")) {
      return "cri-o";
    }
    if (s.contains("containerd")) {
      return "containerd";
    }
    return "";
  }
}
