package io.segscope.exporters.model;

/**
 * Whether one probe program is attached.
 *
 * @param path the kernel path it observes (e.g. {@code gso}, {@code xdp_generic})
 * @param program the program's name
 * @param mode how it attaches: {@code kprobe}, {@code fentry} or {@code tracepoint}
 * @param attached true if attached and running
 */
public record ProbeStatus(String path, String program, String mode, boolean attached) {
  public ProbeStatus {
    Checks.notBlank(path, "ProbeStatus.path");
    Checks.notBlank(program, "ProbeStatus.program");
    Checks.notBlank(mode, "ProbeStatus.mode");
  }
}
