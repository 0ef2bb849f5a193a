package io.segscope.agent.http;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.workload.DeviceWorkloads;
import io.segscope.agent.workload.WorkloadKind;
import io.segscope.agent.workload.Workloads;
import io.vertx.core.MultiMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/** Checks query parameters: only known ones, each at most once, none empty. Pure. */
final class Query {
  private Query() {}

  /** The value of every known parameter; fails on an unknown, repeated or empty one. */
  static Map<String, String> check(String endpoint, MultiMap params, Set<String> known) throws BadRequest {
    Map<String, String> out = new HashMap<>();
    for (String name : params.names()) {
      if (!known.contains(name)) {
        throw new BadRequest("unknown parameter " + BadRequest.quote(name) + " (" + endpoint + " takes "
            + (known.isEmpty() ? "none" : String.join(", ", new TreeSet<>(known))) + ")");
      }
      List<String> values = params.getAll(name);
      if (values.size() != 1) {
        throw new BadRequest("parameter '" + name + "' given " + values.size() + " times");
      }
      if (values.get(0).isEmpty()) {
        throw new BadRequest("parameter '" + name + "' is empty");
      }
      out.put(name, values.get(0));
    }
    return out;
  }

  /**
   * The filter of GET /api/v1/devices: {@code netns} (an inode number or the name of a known
   * namespace) and {@code device} (a name, matched exactly).
   */
  static Predicate<Device> devices(Map<String, String> q, Inventory inv,
      Workloads workloads) throws BadRequest {
    Predicate<Device> filter = d -> true;
    String netns = q.get("netns");
    if (netns != null) {
      if (!netns.isEmpty() && netns.chars().allMatch(c -> c >= '0' && c <= '9')) {
        long inode = inode(netns);
        filter = filter.and(d -> d.netns() == inode);
      } else if (inv.namespaces().stream().anyMatch(n -> n.name().equals(netns))) {
        filter = filter.and(d -> d.netnsName().equals(netns));
      } else {
        throw new BadRequest("netns " + BadRequest.quote(netns)
            + " is neither an inode number nor the name of a namespace");
      }
    }
    String device = q.get("device");
    if (device != null) {
      filter = filter.and(d -> d.name().equals(device));
    }
    String pod = q.get("pod");
    if (pod != null) {
      if (pod.isEmpty()) {
        throw new BadRequest("pod must name a pod: NAME or NAMESPACE/NAME");
      }
      var served = new DeviceWorkloads(inv, workloads);
      filter = filter.and(d -> {
        var w = served.served(d).workload();
        return w.kind() == WorkloadKind.POD && !w.pod().isEmpty()
            && (pod.equals(w.pod()) || pod.equals(w.podNamespace() + "/" + w.pod()));
      });
    }
    return filter;
  }

  /** A namespace inode number: decimal, at most 2^63 - 1. */
  static long inode(String digits) throws BadRequest {
    String d = digits.replaceFirst("^0+(?=.)", "");
    if (d.length() > 19 || (d.length() == 19 && d.compareTo(String.valueOf(Long.MAX_VALUE)) > 0)) {
      throw new BadRequest("netns " + BadRequest.quote(digits) + " is out of range for a namespace inode number");
    }
    return Long.parseLong(d);
  }

  /** Whether an {@code Accept-Encoding} header admits gzip (gzip or * with a q above 0). */
  static boolean acceptsGzip(String header) {
    if (header == null) {
      return false;
    }
    Optional<Boolean> gzip = Optional.empty();
    boolean star = false;
    for (String part : header.split(",")) {
      String[] f = part.split(";");
      if (f.length == 0) {
        continue;
      }
      String coding = f[0].strip().toLowerCase(Locale.ROOT);
      boolean acceptable = true;
      for (int i = 1; i < f.length; i++) {
        String p = f[i].strip().toLowerCase(Locale.ROOT);
        if (p.startsWith("q=")) {
          try {
            acceptable = Double.parseDouble(p.substring(2)) > 0;
          } catch (NumberFormatException e) {
            acceptable = false;
          }
        }
      }
      if (coding.equals("gzip") || coding.equals("x-gzip")) {
        gzip = Optional.of(acceptable);
      } else if (coding.equals("*")) {
        star = acceptable;
      }
    }
    return gzip.orElse(star);
  }
}
