package io.segscope.agent.inventory.model;

import java.util.OptionalInt;

/**
 * The XDP programs attached to a device. {@code progId} is IFLA_XDP_PROG_ID (the single program,
 * absent in MULTI mode); the per-mode ids are IFLA_XDP_DRV/SKB/HW_PROG_ID. {@code genericProgId} is
 * the kernel's "SKB" (generic, copy-prone) mode.
 */
public record XdpAttachment(XdpMode mode, OptionalInt progId, OptionalInt driverProgId,
    OptionalInt genericProgId, OptionalInt hardwareProgId) {

  public static final XdpAttachment UNREPORTED = new XdpAttachment(XdpMode.UNREPORTED,
      OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty());

  /** True when a program runs in generic (skb) mode, alone or alongside another mode. */
  public boolean generic() {
    return mode == XdpMode.GENERIC || genericProgId.isPresent();
  }
}
