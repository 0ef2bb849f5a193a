package io.segscope.agent.advice;

import io.segscope.exporters.model.DeviceRef;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one rule concluded from one evaluation: the problem, the evidence, the fix. A
 * {@link Recommendation} is a finding that held long enough to be reported.
 *
 * @param rule the rule's stable name, e.g. {@code gso_size_mismatch}
 * @param severity {@code warning} or {@code info}
 * @param subject the device where the cost was measured
 * @param devices every device involved (the subject first, then the ones the commands change)
 * @param summary one sentence for a person
 * @param evidence measured rates, CPU, quantiles and the settings compared (JSON-friendly values)
 * @param commands the commands to run, in order, as argv ({@link Command}: exact bytes, rendered for a POSIX
 *     shell by {@link Command#shell()}); empty when no safe command exists (then {@code explanation}
 *     says what can be done)
 * @param cpuSavingCores expected CPU saved, in cores
 * @param savingBasis how the saving was estimated
 * @param confidence {@code high}, {@code medium} or {@code low}
 * @param risk what else the change does
 * @param explanation what a person can do beyond (or, without commands, instead of) the commands,
 *     "" when the commands say it all
 */
public record Finding(String rule, String severity, DeviceRef subject, List<DeviceRef> devices,
    String summary, Map<String, Object> evidence, List<Command> commands, double cpuSavingCores,
    String savingBasis, String confidence, String risk, String explanation) {

  /** A finding whose commands say it all. */
  public Finding(String rule, String severity, DeviceRef subject, List<DeviceRef> devices, String summary,
      Map<String, Object> evidence, List<Command> commands, double cpuSavingCores, String savingBasis,
      String confidence, String risk) {
    this(rule, severity, subject, devices, summary, evidence, commands, cpuSavingCores, savingBasis, confidence,
        risk, "");
  }

  public Finding {
    devices = List.copyOf(devices);
    evidence = Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    commands = List.copyOf(commands);
    Objects.requireNonNull(explanation, "explanation");
    if (!(cpuSavingCores >= 0) || Double.isInfinite(cpuSavingCores)) {
      throw new IllegalArgumentException("Finding.cpuSavingCores must be finite and >= 0, got " + cpuSavingCores);
    }
  }

  /**
   * Stable across agent restarts: the rule, and each involved device by namespace (its name, or its
   * inode when unnamed) and device name. The same problem keeps the same id; a different target
   * device makes a different one.
   */
  public String id() {
    StringBuilder b = new StringBuilder(rule);
    for (DeviceRef d : devices) {
      b.append('|').append(d.netnsName().isEmpty() ? Long.toString(d.netns()) : d.netnsName())
          .append('/').append(d.device());
    }
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
      return rule + "-" + HexFormat.of().formatHex(h, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
