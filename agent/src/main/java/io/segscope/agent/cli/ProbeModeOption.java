package io.segscope.agent.cli;

import io.segscope.probes.ProbeMode;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine;

/** {@code --probe-mode auto|fentry|kprobe|tracepoint}: auto picks the best mode per path. */
public enum ProbeModeOption {
  AUTO(Optional.empty()),
  FENTRY(Optional.of(ProbeMode.FENTRY)),
  KPROBE(Optional.of(ProbeMode.KPROBE)),
  TRACEPOINT(Optional.of(ProbeMode.TRACEPOINT));

  /** The option's help text, shared by the commands that take it. */
  static final String DESCRIPTION = "Probe mode: auto (best per path: fentry, then kprobe, then tracepoint), "
      + "or force fentry, kprobe or tracepoint for every path (default: ${DEFAULT-VALUE}).";

  private final Optional<ProbeMode> forced;

  ProbeModeOption(Optional<ProbeMode> forced) {
    this.forced = forced;
  }

  /** The forced mode, empty for auto. */
  public Optional<ProbeMode> forced() {
    return forced;
  }

  /** Parses auto|fentry|kprobe|tracepoint, case-insensitively, naming the choices on a bad value. */
  public static final class Converter implements CommandLine.ITypeConverter<ProbeModeOption> {
    @Override
    public ProbeModeOption convert(String value) {
      for (ProbeModeOption o : values()) {
        if (o.toString().equalsIgnoreCase(value.strip())) {
          return o;
        }
      }
      throw new CommandLine.TypeConversionException("'" + value
          + "' is not a probe mode: expected auto, fentry, kprobe or tracepoint");
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
