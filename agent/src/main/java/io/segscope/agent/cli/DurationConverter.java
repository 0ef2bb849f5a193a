package io.segscope.agent.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses durations such as {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern P = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    Matcher m = P.matcher(value.trim());
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration: use a whole number with ms, s, m or h (e.g. 5s, 500ms)");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
    if (d.isZero()) {
      throw new CommandLine.TypeConversionException("'" + value + "': the duration must be > 0");
    }
    return d;
  }
}
