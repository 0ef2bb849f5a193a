package io.segscope.bench.scale;

import io.segscope.lab.Lab;
import io.segscope.lab.Netns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Many veth pairs across a few lab namespaces, for the scale benchmark. Pair {@code i} joins
 * {@code fa<i>} in namespace {@code fleeta<i mod G>} to {@code fb<i>} in {@code fleetb<i mod G>}, with a
 * /30 of 198.19.0.0/16 ({@code .1} on the a side, {@code .2} on the b side). Devices are created in bulk
 * with {@code ip -batch} inside the lab's own namespaces and carry the lab's alias; they disappear with
 * the namespaces when the lab closes.
 */
public final class DeviceFleet {
  /** At most 16384 pairs fit in 198.19.0.0/16 at one /30 each. */
  public static final int MAX_PAIRS = 16384;

  private final Lab lab;
  private final List<Netns> aSide = new ArrayList<>();
  private final List<Netns> bSide = new ArrayList<>();
  private int pairs;

  /** @param groups how many namespace pairs the veth pairs are spread over */
  public DeviceFleet(Lab lab, int groups) {
    if (groups < 1) {
      throw new IllegalArgumentException("create device fleet: groups must be >= 1, got " + groups);
    }
    this.lab = lab;
    for (int g = 0; g < groups; g++) {
      aSide.add(lab.namespace("fleeta" + g));
      bSide.add(lab.namespace("fleetb" + g));
    }
  }

  public int pairs() {
    return pairs;
  }

  /** Devices of the fleet (two per pair). */
  public int devices() {
    return 2 * pairs;
  }

  public List<Netns> aNamespaces() {
    return List.copyOf(aSide);
  }

  public List<Netns> bNamespaces() {
    return List.copyOf(bSide);
  }

  /** Adds pairs until there are {@code target}. */
  public void growTo(int target) {
    if (target > MAX_PAIRS) {
      throw new IllegalArgumentException("grow device fleet: " + target + " pairs > " + MAX_PAIRS);
    }
    if (target <= pairs) {
      return;
    }
    int groups = aSide.size();
    for (int g = 0; g < groups; g++) {
      StringBuilder a = new StringBuilder();
      StringBuilder b = new StringBuilder();
      for (int i = pairs; i < target; i++) {
        if (i % groups != g) {
          continue;
        }
        a.append("link add fa").append(i).append(" type veth peer name fb").append(i).append(" netns ")
            .append(bSide.get(g).name()).append('\n');
        a.append("link set dev fa").append(i).append(" alias \"").append(lab.alias()).append("\" up\n");
        a.append("addr add ").append(address(i, 1)).append("/30 dev fa").append(i).append('\n');
        b.append("link set dev fb").append(i).append(" alias \"").append(lab.alias()).append("\" up\n");
        b.append("addr add ").append(address(i, 2)).append("/30 dev fb").append(i).append('\n');
      }
      batch(aSide.get(g), a.toString(), "a" + g);
      batch(bSide.get(g), b.toString(), "b" + g);
    }
    pairs = target;
  }

  /** The address of side {@code host} (1 = a, 2 = b) of pair {@code i}. */
  public static String address(int i, int host) {
    int base = i * 4 + host;
    return "198.19." + (base >> 8) + "." + (base & 0xff);
  }

  /** Addresses of every pair's {@code host} side (1 = a, 2 = b) whose pair lives in group {@code g}. */
  public List<String> addresses(int g, int host) {
    List<String> out = new ArrayList<>();
    for (int i = g; i < pairs; i += aSide.size()) {
      out.add(address(i, host));
    }
    return out;
  }

  private void batch(Netns ns, String commands, String tag) {
    if (commands.isEmpty()) {
      return;
    }
    Path file = lab.workDir().resolve("fleet-" + tag + "-" + pairs + ".batch");
    try {
      Files.writeString(file, commands);
    } catch (IOException e) {
      throw new IllegalStateException("write " + file + ": " + e.getMessage(), e);
    }
    lab.exec(ns, "ip", "-batch", file.toString());
  }
}
