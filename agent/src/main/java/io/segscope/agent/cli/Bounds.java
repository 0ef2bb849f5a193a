package io.segscope.agent.cli;

import io.segscope.probes.Timing;
import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.agent.telemetry.VanishedDevices;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The bound of every {@code run} and {@code report} flag value (README.md), checked while the
 * command line is parsed: a value outside its bound is a usage error (exit 2) naming the bound.
 * Each nested converter is one flag's bound.
 */
public final class Bounds {
  private Bounds() {}

  public static final Duration INTERVAL_MIN = Duration.ofMillis(100);
  public static final Duration INTERVAL_MAX = Duration.ofHours(1);
  public static final Duration ADVICE_WINDOW_MIN = Duration.ofSeconds(1);
  public static final Duration ADVICE_WINDOW_MAX = Duration.ofHours(24);
  public static final Duration ADVICE_HOLD_MIN = Duration.ofSeconds(1);
  public static final Duration ADVICE_HOLD_MAX = Duration.ofHours(24);
  public static final Duration REPORT_DURATION_MIN = Duration.ofSeconds(1);
  public static final Duration REPORT_DURATION_MAX = Duration.ofHours(1);
  public static final Duration CRI_TIMEOUT_MIN = Duration.ofMillis(10);
  public static final Duration CRI_TIMEOUT_MAX = Duration.ofMinutes(1);
  public static final Duration WEB_READ_HEADER_TIMEOUT_MIN = Duration.ofSeconds(1);
  public static final Duration WEB_READ_HEADER_TIMEOUT_MAX = Duration.ofMinutes(10);
  public static final Duration WEB_IDLE_TIMEOUT_MIN = Duration.ofSeconds(1);
  public static final Duration WEB_IDLE_TIMEOUT_MAX = Duration.ofHours(1);
  public static final int WEB_MAX_REQUESTS_MAX = 10_000;
  public static final int NETNS_DIRS_MAX = 16;
  public static final int PATH_MAX = 4096;
  public static final int REGEX_MAX = 1024;
  public static final int HOST_MAX = 253;

  public static final Duration TIMING_WINDOW_MIN = Duration.ofMillis(100);

  /**
   * {@code --timing-window}: {@code always}, or how long each sampling window of the timing programs lasts,
   * 100ms up to the cycle (30s; the cycle itself means always).
   */
  public static final class TimingWindow implements ITypeConverter<Timing> {
    @Override
    public Timing convert(String value) {
      if (value.strip().equalsIgnoreCase("always")) {
        return Timing.always();
      }
      Duration d = DurationConverter.parse(value);
      Duration max = Timing.DEFAULT.cycle();
      if (d.compareTo(TIMING_WINDOW_MIN) < 0 || d.compareTo(max) > 0) {
        throw new TypeConversionException("'" + value + "' is outside the bound " + format(TIMING_WINDOW_MIN) + ".."
            + format(max) + " (or always)");
      }
      return Timing.sampled(d);
    }
  }

  /** A duration (DurationConverter syntax) within [min, max]. */
  abstract static class DurationIn implements ITypeConverter<Duration> {
    private final Duration min;
    private final Duration max;

    DurationIn(Duration min, Duration max) {
      this.min = min;
      this.max = max;
    }

    @Override
    public Duration convert(String value) {
      Duration d = DurationConverter.parse(value);
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new TypeConversionException("'" + value + "' is outside the bound " + format(min) + ".." + format(max));
      }
      return d;
    }
  }

  /** --interval: 100ms..1h. */
  public static final class Interval extends DurationIn {
    public Interval() {
      super(INTERVAL_MIN, INTERVAL_MAX);
    }
  }

  /** --advice-window: 1s..24h (and at least --interval, checked by the command). */
  public static final class AdviceWindow extends DurationIn {
    public AdviceWindow() {
      super(ADVICE_WINDOW_MIN, ADVICE_WINDOW_MAX);
    }
  }

  /** --advice-open-after, --advice-close-after: 1s..24h. */
  public static final class AdviceHold extends DurationIn {
    public AdviceHold() {
      super(ADVICE_HOLD_MIN, ADVICE_HOLD_MAX);
    }
  }

  /** report --duration: 1s..1h. */
  public static final class ReportDuration extends DurationIn {
    public ReportDuration() {
      super(REPORT_DURATION_MIN, REPORT_DURATION_MAX);
    }
  }

  /** --cri-timeout: 10ms..1m (the deadline of one CRI call; the workload refresh runs every 10 s). */
  public static final class CriTimeout extends DurationIn {
    public CriTimeout() {
      super(CRI_TIMEOUT_MIN, CRI_TIMEOUT_MAX);
    }
  }

  /** --web.read-header-timeout: 1s..10m. */
  public static final class WebReadHeaderTimeout extends DurationIn {
    public WebReadHeaderTimeout() {
      super(WEB_READ_HEADER_TIMEOUT_MIN, WEB_READ_HEADER_TIMEOUT_MAX);
    }
  }

  /** --web.idle-timeout: 1s..1h. */
  public static final class WebIdleTimeout extends DurationIn {
    public WebIdleTimeout() {
      super(WEB_IDLE_TIMEOUT_MIN, WEB_IDLE_TIMEOUT_MAX);
    }
  }

  /** --vanished-device-grace (hidden): 1s..15s. */
  public static final class VanishedDeviceGrace extends DurationIn {
    public VanishedDeviceGrace() {
      super(VanishedDevices.MIN_GRACE, VanishedDevices.GRACE);
    }
  }

  /** A whole number within [min, max]. */
  abstract static class WholeIn implements ITypeConverter<Integer> {
    private final int min;
    private final int max;

    WholeIn(int min, int max) {
      this.min = min;
      this.max = max;
    }

    @Override
    public Integer convert(String value) {
      int n;
      try {
        n = Integer.parseInt(value.strip());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a whole number");
      }
      if (n < min || n > max) {
        throw new TypeConversionException("'" + value + "' is outside the bound " + min + ".." + max);
      }
      return n;
    }
  }

  /** --max-devices: 1..100000. */
  public static final class MaxDevices extends WholeIn {
    public MaxDevices() {
      super(DeviceSelection.Config.MIN_DEVICES, DeviceSelection.Config.MAX_DEVICES);
    }
  }

  /** --web.max-requests: 0..10000 (0: no limit). */
  public static final class WebMaxRequests extends WholeIn {
    public WebMaxRequests() {
      super(0, WEB_MAX_REQUESTS_MAX);
    }
  }

  /** --device-include, --device-exclude: a Java regular expression of at most 1024 characters. */
  public static final class Regex implements ITypeConverter<Pattern> {
    @Override
    public Pattern convert(String value) {
      if (value.length() > REGEX_MAX) {
        throw new TypeConversionException("the expression has " + value.length() + " characters, over the bound of "
            + REGEX_MAX);
      }
      try {
        return Pattern.compile(value);
      } catch (PatternSyntaxException e) {
        throw new TypeConversionException("'" + value + "' is not a Java regular expression: "
            + e.getDescription() + " at index " + e.getIndex());
      }
    }
  }

  /** --netns-dir: an absolute path of at most 4096 bytes (the directory count is checked by the command). */
  public static final class NetnsDir implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
      if (value.getBytes(StandardCharsets.UTF_8).length > PATH_MAX) {
        throw new TypeConversionException("the path is over the bound of " + PATH_MAX + " bytes");
      }
      if (!value.startsWith("/")) {
        throw new TypeConversionException("'" + value + "' is not an absolute path");
      }
      return Path.of(value);
    }
  }

  /** A usage error (exit 2) for a bound that involves two flags or a repeat count. */
  static CommandLine.ParameterException violated(CommandLine cmd, String message) {
    return new CommandLine.ParameterException(cmd, message);
  }

  /** 100ms, 1s, 24h: the shortest DurationConverter spelling. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
