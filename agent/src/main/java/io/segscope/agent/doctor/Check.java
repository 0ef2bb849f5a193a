package io.segscope.agent.doctor;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * One preflight finding.
 *
 * @param name what was checked, e.g. {@code btf}, {@code headers}
 * @param status ok, warn (works, but worth knowing) or fail (segscope cannot run because of it)
 * @param detail what was found, in words
 */
public record Check(String name, Status status, String detail) {

  /** How a check came out. */
  public enum Status {
    OK,
    WARN,
    FAIL;

    @JsonValue
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public Check {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(detail, "detail");
  }

  static Check ok(String name, String detail) {
    return new Check(name, Status.OK, detail);
  }

  static Check warn(String name, String detail) {
    return new Check(name, Status.WARN, detail);
  }

  static Check fail(String name, String detail) {
    return new Check(name, Status.FAIL, detail);
  }

  public boolean failed() {
    return status == Status.FAIL;
  }
}
