package io.segscope.lab;

import java.nio.file.Path;
import java.util.List;

/**
 * Sets a lab device's IPv4 BIG TCP limits ({@code gso_ipv4_max_size}, {@code gro_ipv4_max_size}) with the
 * lab's {@code link_ipv4_max.c}: Debian 12's iproute2 (6.1) has no keywords for them.
 */
public final class LinkIpv4Max {
  private final Path binary;

  private LinkIpv4Max(Path binary) {
    this.binary = binary;
  }

  /** Compiles {@code link_ipv4_max.c} into {@code dir/link_ipv4_max}. */
  public static LinkIpv4Max build(Path dir) {
    return new LinkIpv4Max(LabProgram.build(dir, "link_ipv4_max.c", "link_ipv4_max"));
  }

  /** Sets {@code gso_ipv4_max_size} and {@code gro_ipv4_max_size} of lab device {@code dev} in {@code ns}. */
  public void set(Lab lab, Netns ns, String dev, int gso, int gro) {
    lab.exec(ns, binary.toString(), "--dev", dev, "--gso", Integer.toString(gso), "--gro", Integer.toString(gro));
  }
}
