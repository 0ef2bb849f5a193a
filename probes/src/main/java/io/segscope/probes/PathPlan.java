package io.segscope.probes;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The mode chosen for one path and the verdict of every mode tried before it, best first. Modes
 * worse than the chosen one are not tried. A path without a mode is not measured: {@link #reason()}
 * says why.
 *
 * @param path the path
 * @param mode the chosen mode, empty when none works
 * @param verdicts every mode tried, in the order tried
 */
public record PathPlan(MeasuredPath path, Optional<ProbeMode> mode, List<ModeVerdict> verdicts) {
  public PathPlan {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(mode, "mode");
    verdicts = List.copyOf(verdicts);
    if (mode.isPresent() && verdicts.stream().noneMatch(v -> v.usable() && v.mode() == mode.get())) {
      throw new IllegalArgumentException("plan " + path.label() + ": mode " + mode.get().label()
          + " chosen without a usable verdict");
    }
  }

  public boolean measured() {
    return mode.isPresent();
  }

  /** The verdict of {@code m}, empty when it was not tried. */
  public Optional<ModeVerdict> verdict(ProbeMode m) {
    return verdicts.stream().filter(v -> v.mode() == m).findFirst();
  }

  /** Why the better modes are out (or, unmeasured, why every mode is): {@code "fentry: ...; kprobe: ..."}. */
  public String reason() {
    return verdicts.stream().filter(v -> !v.usable()).map(ModeVerdict::describe)
        .collect(Collectors.joining("; "));
  }

  /** {@code "gso_tx: tracepoint (fentry: ...; kprobe: ...)"} or {@code "gso_tx: not measured (...)"}. */
  public String describe() {
    String why = reason();
    String head = path.label() + ": " + mode.map(ProbeMode::label).orElse("not measured");
    return why.isEmpty() ? head : head + " (" + why + ")";
  }
}
