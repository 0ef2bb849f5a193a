package io.segscope.agent.e2e;

import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricFamily;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One histogram series exactly as the agent exports it in the Prometheus protobuf format (what a
 * Prometheus with native histograms scrapes): its native buckets (schema, zero bucket, spans and
 * deltas decoded to index -> count) and its classic buckets, with the quantile Prometheus computes
 * from each.
 *
 * <p>{@link #nativeQuantile} is Prometheus 2.42's {@code histogram_quantile} over a native histogram
 * (promql/quantile.go, histogramQuantile): rank = q * count; walk the zero bucket [0, threshold], then
 * the buckets (2^((i-1)/2^schema), 2^(i/2^schema)] in increasing order, adding counts, up to the first
 * where the running count reaches the rank; interpolate linearly inside it: lower + (upper - lower) *
 * (rank - count before it) / its count. {@link #classicQuantile} is its bucketQuantile over the
 * classic {@code le} buckets: the same walk over cumulative counts, the first bucket starting at 0,
 * and the rank falling into {@code +Inf} answering the highest finite bound. The duration-quantile
 * tests check both against Prometheus' own answers on the host, and use them where no Prometheus
 * runs (the guest kernel).
 */
record ExportedHistogram(int schema, double zeroThreshold, long zeroCount, NavigableMap<Integer, Long> buckets,
    double[] classicUpper, long[] classicCumulative, long count, double sum) {

  static final String PROTOBUF = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
      + " encoding=delimited";

  /** The series of {@code family} whose labels include {@code labels}; null when the scrape has none. */
  static ExportedHistogram of(byte[] protobufScrape, String family, Map<String, String> labels) throws IOException {
    ByteArrayInputStream in = new ByteArrayInputStream(protobufScrape);
    MetricFamily f;
    while ((f = MetricFamily.parseDelimitedFrom(in)) != null) {
      if (!f.getName().equals(family)) {
        continue;
      }
      for (Metrics.Metric m : f.getMetricList()) {
        Map<String, String> have = new TreeMap<>();
        m.getLabelList().forEach(l -> have.put(l.getName(), l.getValue()));
        if (have.entrySet().containsAll(labels.entrySet())) {
          return of(m.getHistogram());
        }
      }
    }
    return null;
  }

  static ExportedHistogram of(Metrics.Histogram h) {
    TreeMap<Integer, Long> buckets = new TreeMap<>();
    int index = 0;
    long running = 0;
    int delta = 0;
    for (int s = 0; s < h.getPositiveSpanCount(); s++) {
      Metrics.BucketSpan span = h.getPositiveSpan(s);
      index += span.getOffset(); // the first span's offset is its index, later ones the gap
      for (int k = 0; k < span.getLength(); k++) {
        running += h.getPositiveDelta(delta++);
        if (running != 0) {
          buckets.put(index, running);
        }
        index++;
      }
    }
    List<Metrics.Bucket> classic = new ArrayList<>(h.getBucketList());
    double[] upper = new double[classic.size()];
    long[] cumulative = new long[classic.size()];
    for (int i = 0; i < classic.size(); i++) {
      upper[i] = classic.get(i).getUpperBound();
      cumulative[i] = classic.get(i).getCumulativeCount();
    }
    return new ExportedHistogram(h.getSchema(), h.getZeroThreshold(), h.getZeroCount(), buckets, upper, cumulative,
        h.getSampleCount(), h.getSampleSum());
  }

  /**
   * What was observed between {@code earlier} and this scrape of the same series (null: the series
   * did not exist yet): every native and classic count minus the earlier one. Fails if a count went
   * down (the series was reset) or the layout changed.
   */
  ExportedHistogram since(ExportedHistogram earlier) {
    if (earlier == null) {
      return this;
    }
    if (earlier.schema != schema || earlier.zeroThreshold != zeroThreshold
        || !Arrays.equals(earlier.classicUpper, classicUpper)) {
      throw new AssertionError("histogram layout changed between two scrapes of one series");
    }
    TreeMap<Integer, Long> delta = new TreeMap<>();
    buckets.forEach((i, n) -> delta.put(i, n - earlier.buckets.getOrDefault(i, 0L)));
    earlier.buckets.keySet().forEach(i -> delta.putIfAbsent(i, -earlier.buckets.get(i)));
    long[] cumulative = new long[classicCumulative.length];
    for (int i = 0; i < cumulative.length; i++) {
      cumulative[i] = classicCumulative[i] - earlier.classicCumulative[i];
    }
    if (delta.values().stream().anyMatch(n -> n < 0) || zeroCount < earlier.zeroCount || count < earlier.count
        || Arrays.stream(cumulative).anyMatch(n -> n < 0)) {
      throw new AssertionError("histogram counts went down between two scrapes of one series");
    }
    delta.values().removeIf(n -> n == 0);
    return new ExportedHistogram(schema, zeroThreshold, zeroCount - earlier.zeroCount, delta, classicUpper,
        cumulative, count - earlier.count, sum - earlier.sum);
  }

  /** The upper bound of native bucket {@code index}. */
  double upperBound(int index) {
    return Math.pow(2, index * Math.pow(2, -schema));
  }

  /** Prometheus' histogram_quantile of the native histogram (see the class comment); NaN when empty. */
  double nativeQuantile(double q) {
    long total = zeroCount + buckets.values().stream().mapToLong(Long::longValue).sum();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lower = 0;
    double upper = zeroThreshold;
    double inBucket = zeroCount;
    double seen = zeroCount;
    if (seen < rank) {
      for (Map.Entry<Integer, Long> b : buckets.entrySet()) {
        lower = upperBound(b.getKey() - 1);
        upper = upperBound(b.getKey());
        inBucket = b.getValue();
        seen += b.getValue();
        if (seen >= rank) {
          break;
        }
      }
    }
    if (seen < rank) {
      return upper;
    }
    return lower + (upper - lower) * ((rank - (seen - inBucket)) / inBucket);
  }

  /** Prometheus' histogram_quantile over the classic buckets (see the class comment); NaN when empty. */
  double classicQuantile(double q) {
    int last = classicUpper.length - 1;
    if (last < 0 || classicCumulative[last] == 0) {
      return Double.NaN;
    }
    double total = classicCumulative[last];
    double rank = q * total;
    int b = 0;
    while (b < last && classicCumulative[b] < rank) {
      b++;
    }
    if (b == last && Double.isInfinite(classicUpper[b])) {
      return classicUpper[last - 1];
    }
    double start = b == 0 ? 0 : classicUpper[b - 1];
    double before = b == 0 ? 0 : classicCumulative[b - 1];
    double count = classicCumulative[b] - before;
    return start + (classicUpper[b] - start) * ((rank - before) / count);
  }

  /** The classic bucket (lower, upper] holding {@code value}. */
  double[] classicBucketOf(double value) {
    double lower = 0;
    for (double u : classicUpper) {
      if (value <= u) {
        return new double[] {lower, u};
      }
      lower = u;
    }
    return new double[] {lower, Double.POSITIVE_INFINITY};
  }
}
