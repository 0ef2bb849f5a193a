package io.segscope.exporters;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.segscope.exporters.model.DeviceInfo;
import io.segscope.exporters.model.DeviceRef;
import io.segscope.exporters.model.GsoDeviceStats;
import io.segscope.exporters.model.ProbeStatus;
import io.segscope.exporters.model.ProgramStats;
import io.segscope.exporters.model.RecommendationInfo;
import io.segscope.exporters.model.XdpDeviceStats;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Records that were skipped so the rest of a read or scrape goes on: each is counted in
 * {@code segscope_exporter_errors_total{kind}} (present at 0 for every {@link #KINDS kind}) and
 * logged once, the first time that record fails, not on every read. A record is the same record
 * while it describes the same thing (a device's netns and ifindex, a recommendation's id, a
 * program's name), whatever its values. Thread-safe.
 */
public final class RecordErrors implements TranslationErrorListener {
  private static final System.Logger LOG = System.getLogger(RecordErrors.class.getName());

  /** A per-device counter record of the BPF maps that could not be named or taken into a snapshot. */
  public static final String COUNTERS = "counters";
  /** The rules failed on one read; the recommendations of the previous read are kept. */
  public static final String ADVICE = "advice";

  /** Every kind: the exporter's ({@link TranslationErrorListener#KINDS}) and the snapshot assembler's. */
  public static final List<String> KINDS = Stream.concat(
      TranslationErrorListener.KINDS.stream(), Stream.of(COUNTERS, ADVICE)).toList();

  /** Distinct failing records remembered for log-once; beyond it failures are counted, not logged. */
  static final int MAX_REMEMBERED = 4096;

  private final SelfMetrics self;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Set<String> logged = Collections.newSetFromMap(Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, false)));
  private volatile boolean overflowLogged;

  /** Counters on {@code meters}, every kind at 0. */
  public RecordErrors(MeterRegistry meters) {
    this(new SelfMetrics(meters));
  }

  /** Counters registered by {@code self}, every kind at 0. */
  public RecordErrors(SelfMetrics self) {
    this.self = self;
    for (String kind : KINDS) {
      counter(kind);
    }
  }

  /** From the exporter: a snapshot record it could not translate. */
  @Override
  public void translationFailed(String kind, Object record, RuntimeException cause) {
    skipped(kind, identity(record), record == null ? "snapshot" : describe(record), cause);
  }

  /**
   * One record skipped.
   *
   * @param kind what kind of record ({@link #KINDS})
   * @param identity what makes it the same record on the next read (e.g. "netns/ifindex")
   * @param what the record for the log line, e.g. "device up0 (netns 4026532301, ifindex 3)"
   * @param cause why
   */
  public void skipped(String kind, String identity, String what, RuntimeException cause) {
    counter(kind).increment();
    String key = kind + "|" + identity;
    if (logged.contains(key)) {
      return;
    }
    if (logged.size() >= MAX_REMEMBERED) {
      if (!overflowLogged) {
        overflowLogged = true;
        LOG.log(Level.WARNING, "skip records: more than " + MAX_REMEMBERED + " different records failed; further "
            + "ones are counted in segscope_exporter_errors_total without a log line");
      }
      return;
    }
    if (logged.add(key)) {
      LOG.log(Level.WARNING, "skip " + kind + " record " + what + ": " + cause.getMessage()
          + " (counted in segscope_exporter_errors_total{kind=\"" + kind + "\"}; logged once)");
    }
  }

  /** The count so far for {@code kind}. */
  public double count(String kind) {
    return counter(kind).count();
  }

  private Counter counter(String kind) {
    return counters.computeIfAbsent(kind, self::exporterErrors);
  }

  private static String identity(Object record) {
    DeviceRef d = device(record);
    if (d != null) {
      return d.id().withoutCookie() + "/" + d.device();
    }
    if (record instanceof RecommendationInfo r) {
      return r.id();
    }
    if (record instanceof ProbeStatus p) {
      return p.path() + "/" + p.program();
    }
    if (record instanceof ProgramStats p) {
      return p.program();
    }
    return record == null ? "snapshot" : record.getClass().getSimpleName();
  }

  private static String describe(Object record) {
    DeviceRef d = device(record);
    if (d != null) {
      return "of device " + d.device() + " (netns " + d.netns() + ", ifindex " + d.ifindex() + ")";
    }
    return record.toString();
  }

  private static DeviceRef device(Object record) {
    if (record instanceof GsoDeviceStats g) {
      return g.device();
    }
    if (record instanceof XdpDeviceStats x) {
      return x.device();
    }
    if (record instanceof DeviceInfo i) {
      return i.device();
    }
    return null;
  }
}
