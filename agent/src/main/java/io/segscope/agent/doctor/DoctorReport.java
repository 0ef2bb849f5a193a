package io.segscope.agent.doctor;

import java.util.List;

/**
 * What {@code segscope doctor} found. Serialised as is by {@code --json}.
 *
 * @param kernel the running kernel's release ({@code uname -r})
 * @param probeMode {@code auto} or the forced mode
 * @param ready true when at least the gso_tx path can be measured and the probe test passed
 * @param verdict one line: what runs in which mode, or the missing piece
 * @param checks the host checks, in order
 * @param paths each measured path: the mode it will use and why each better mode is out
 * @param probeTest the real compile + attach + detach of the planned programs
 * @param tracepoints how the tracepoint programs will attach ({@code tp_btf}, {@code raw_tp},
 *     {@code tracepoint}), and why each cheaper type is out
 */
public record DoctorReport(String kernel, String probeMode, boolean ready, String verdict, List<Check> checks,
    List<PathReport> paths, Check probeTest, Tracepoints tracepoints) {

  public DoctorReport {
    checks = List.copyOf(checks);
    paths = List.copyOf(paths);
  }

  /** The tracepoint attach type chosen and why cheaper ones are out ("tp_btf: ..."). */
  public record Tracepoints(String attach, List<String> out) {
    public Tracepoints {
      out = List.copyOf(out);
    }
  }

  /**
   * One path's plan.
   *
   * @param path {@code gso_tx} or {@code xdp_generic}
   * @param mode the mode it will use, or {@code none} when no mode can measure it
   * @param tried every mode tried, best first, with the reason it is out ("" for the one chosen)
   */
  public record PathReport(String path, String mode, List<Tried> tried) {
    public PathReport {
      tried = List.copyOf(tried);
    }
  }

  /** One mode tried for a path. */
  public record Tried(String mode, boolean usable, String reason) {}
}
