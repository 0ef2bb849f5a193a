package io.segscope.agent.inventory.model;

/**
 * How XDP programs are attached to a device (IFLA_XDP_ATTACHED, values XDP_ATTACHED_*).
 * {@link #UNREPORTED} means the kernel sent no IFLA_XDP at all: not the same as {@link #NONE}.
 */
public enum XdpMode {
  NONE("none"),
  DRIVER("drv"),
  GENERIC("generic"),
  HARDWARE("hw"),
  /** More than one mode at once; per-mode program ids tell which. */
  MULTI("multi"),
  UNREPORTED("unreported");

  private final String label;

  XdpMode(String label) {
    this.label = label;
  }

  /** The short name used in metrics and JSON: none, drv, generic, hw, multi, unreported. */
  public String label() {
    return label;
  }

  /** Maps the kernel's XDP_ATTACHED_* value; an unknown value is reported as null. */
  public static XdpMode fromAttached(int attached) {
    switch (attached) {
      case 0:
        return NONE;
      case 1:
        return DRIVER;
      case 2:
        return GENERIC;
      case 3:
        return HARDWARE;
      case 4:
        return MULTI;
      default:
        return null;
    }
  }
}
