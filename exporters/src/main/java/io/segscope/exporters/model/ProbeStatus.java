package io.segscope.exporters.model;

/**
 * Whether one probe program is attached.
 *
 * @param path the kernel path it observes ({@code gso_tx}, {@code xdp_generic})
 * @param program the program's name
 * @param mode the path's probe mode: {@code kprobe}, {@code fentry} or {@code tracepoint}
 * @param attach how the program attaches: {@code tp_btf}, {@code raw_tp}, {@code tracepoint},
 *     {@code kprobe}, {@code kretprobe}, {@code fentry}, {@code fexit}
 * @param attached true if attached and running
 * @param onDemand attached only while needed (the timing programs outside their sampling windows, the
 *     generic-XDP program while no generic XDP is attached): 0 is then its normal state
 */
public record ProbeStatus(String path, String program, String mode, String attach, boolean attached,
    boolean onDemand) {
  /** A program that runs always (not on demand). */
  public ProbeStatus(String path, String program, String mode, String attach, boolean attached) {
    this(path, program, mode, attach, attached, false);
  }

  /** The value of the {@code schedule} label: {@code always} or {@code on_demand}. */
  public String schedule() {
    return onDemand ? "on_demand" : "always";
  }

  public ProbeStatus {
    Checks.notBlank(path, "ProbeStatus.path");
    Checks.notBlank(program, "ProbeStatus.program");
    Checks.notBlank(mode, "ProbeStatus.mode");
    Checks.notBlank(attach, "ProbeStatus.attach");
  }
}
