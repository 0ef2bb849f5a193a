package io.segscope.agent.doctor;

import java.util.Locale;

/** The person-readable rendering of a {@link DoctorReport}. */
public final class DoctorText {
  private DoctorText() {}

  public static String render(DoctorReport r) {
    StringBuilder out = new StringBuilder();
    out.append("segscope doctor: kernel ").append(r.kernel()).append(", probe mode ").append(r.probeMode())
        .append("\n\nhost\n");
    for (Check c : r.checks()) {
      line(out, c);
    }
    out.append("\npaths (modes best first; worse modes are not tried once one works)\n");
    if (r.paths().isEmpty()) {
      out.append("  not planned: ").append(r.probeTest().detail()).append('\n');
    }
    for (DoctorReport.PathReport p : r.paths()) {
      out.append(String.format(Locale.ROOT, "  %-12s %s%n", p.path(), p.mode()));
      for (DoctorReport.Tried t : p.tried()) {
        out.append(
            String.format(Locale.ROOT, "      %-11s %s%n", t.mode(), t.usable() ? "usable" : "out: " + t.reason()));
      }
    }
    if (!r.paths().isEmpty()) {
      out.append("\ntracepoint programs attach as (cheapest first: tp_btf, raw_tp, tracepoint)\n");
      out.append(String.format(Locale.ROOT, "  %s%n", r.tracepoints().attach()));
      for (String o : r.tracepoints().out()) {
        out.append("      out: ").append(o).append('\n');
      }
    }
    out.append("\nprobe test\n");
    line(out, r.probeTest());
    out.append('\n').append(r.verdict()).append('\n');
    return out.toString();
  }

  private static void line(StringBuilder out, Check c) {
    String detail = c.detail().replace("\n", "\n" + " ".repeat(22));
    out.append(String.format(Locale.ROOT, "  %-5s %-14s %s%n", c.status().label(), c.name(), detail));
  }
}
