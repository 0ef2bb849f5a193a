package io.segscope.probes.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import org.junit.jupiter.api.Test;

/**
 * The kernel's duration buckets are Prometheus native schema-3 buckets over seconds, exactly: bucket i
 * holds (2^((i-1)/8), 2^(i/8)] s. Checked at and around every boundary of the whole range with an
 * independent high-precision computation, and the generated C binary search against the Java one.
 */
class DurationBucketsTest {
  private static final MathContext MC = new MathContext(50);

  /** 1e9 * 2^(i/8) ns as the root of x^8 = 1e72 * 2^i, by Newton in 50 digits (independent of the class). */
  private static BigDecimal bound(int index) {
    BigDecimal x = new BigDecimal(1e9 * Math.pow(2, index / 8.0), MC);
    BigDecimal p2 = index >= 0 ? new BigDecimal(BigInteger.TWO.pow(index))
        : BigDecimal.ONE.divide(new BigDecimal(BigInteger.TWO.pow(-index)), MC);
    BigDecimal target = BigDecimal.TEN.pow(72).multiply(p2, MC);
    for (int i = 0; i < 8; i++) {
      BigDecimal x7 = x.pow(7, MC);
      x = x.subtract(x.multiply(x7, MC).subtract(target).divide(BigDecimal.valueOf(8).multiply(x7, MC), MC), MC);
    }
    return x;
  }

  @Test
  void thresholdsAreTheFloorsOfTheNativeBounds() {
    for (int i = DurationBuckets.MIN_INDEX - 1; i <= DurationBuckets.MAX_INDEX; i++) {
      long floor = bound(i).setScale(0, RoundingMode.FLOOR).longValueExact();
      assertThat(DurationBuckets.upperBoundNanos(i)).as("bucket %d", i).isEqualTo(floor);
    }
  }

  @Test
  void everyBoundaryAndItsNeighboursLandInTheNativeBucket() {
    for (int i = DurationBuckets.MIN_INDEX; i <= DurationBuckets.MAX_INDEX; i++) {
      long upper = DurationBuckets.upperBoundNanos(i);
      long lower = DurationBuckets.upperBoundNanos(i - 1);
      int slot = i - DurationBuckets.MIN_INDEX + 1;
      assertThat(DurationBuckets.nativeIndex(slot)).isEqualTo(i);
      if (upper == lower) {
        continue; // bucket narrower than 1 ns: no integer duration falls in it
      }
      assertThat(DurationBuckets.slotOf(upper)).as("v = upper bound of %d", i).isEqualTo(slot);
      assertThat(DurationBuckets.slotOf(lower + 1)).as("v = just above the lower bound of %d", i).isEqualTo(slot);
      if (i < DurationBuckets.MAX_INDEX) {
        assertThat(DurationBuckets.slotOf(upper + 1)).as("v = upper + 1 of %d", i).isGreaterThan(slot);
      }
    }
  }

  @Test
  void exactPowersOfTwoSecondsAreUpperBoundsOfMultiplesOfEight() {
    int base = 1 - DurationBuckets.MIN_INDEX;
    assertThat(DurationBuckets.slotOf(1_000_000_000L)).isEqualTo(base);
    assertThat(DurationBuckets.slotOf(1_000_000_001L)).isEqualTo(base + 1);
    assertThat(DurationBuckets.slotOf(500_000_000L)).isEqualTo(base - 8);
    // 2^-20 s = 953.67431640625 ns: 953 is in bucket -160, 954 above it
    assertThat(DurationBuckets.slotOf(953)).isEqualTo(base - 160);
    assertThat(DurationBuckets.slotOf(954)).isEqualTo(base - 159);
  }

  @Test
  void theZeroBucketAndTheClampAtTheTop() {
    assertThat(DurationBuckets.slotOf(0)).isZero();
    assertThat(DurationBuckets.slotOf(6)).isZero(); // the zero threshold 2^(-217/8) s = 6.85 ns
    assertThat(DurationBuckets.slotOf(7)).isEqualTo(1); // bucket -216 = (6.85, 7.45] ns
    assertThat(DurationBuckets.slotOf(8)).isEqualTo(2);
    assertThat(DurationBuckets.slotOf(Long.MAX_VALUE)).isEqualTo(DurationBuckets.SLOTS - 1);
    assertThat(DurationBuckets.zeroThresholdSeconds()).isEqualTo(Math.pow(2, -217 / 8.0));
  }

  @Test
  void theGeneratedCSearchGivesTheSameSlotsAsJava() {
    String c = DurationBuckets.cFunction();
    assertThat(c).contains("#define DUR_SLOTS " + DurationBuckets.SLOTS)
        .contains("static __always_inline u64 dur_slot(u64 v)");
    long[] samples = {0, 1, 7, 8, 9, 953, 954, 1000, 8_800, 65_535, 1_000_000_000L, 123_456_789_012L, Long.MAX_VALUE};
    for (long v : samples) {
      assertThat(CSearch.eval(c, v)).as("v=%d", v).isEqualTo(DurationBuckets.slotOf(v));
    }
    for (int i = DurationBuckets.MIN_INDEX - 1; i <= DurationBuckets.MAX_INDEX; i++) {
      long t = DurationBuckets.upperBoundNanos(i);
      for (long v : new long[] {t - 1, t, t + 1}) {
        assertThat(CSearch.eval(c, v)).as("v=%d", v).isEqualTo(DurationBuckets.slotOf(v));
      }
    }
  }

  /** Evaluates the generated if/else tree for one value, as the kernel would (unsigned compares). */
  static final class CSearch {
    static int eval(String c, long v) {
      String[] lines = c.split("\n");
      int i = 0;
      while (!lines[i].contains("dur_slot")) {
        i++;
      }
      return walk(lines, i + 2, v);
    }

    private static int walk(String[] lines, int at, long v) {
      String l = lines[at].strip();
      if (l.startsWith("return ")) {
        return Integer.parseInt(l.substring(7, l.length() - 1));
      }
      long t = Long.parseUnsignedLong(l.substring("if (v > ".length(), l.indexOf("ULL")));
      int depth = indent(lines[at]);
      int elseAt = at + 1;
      while (!(indent(lines[elseAt]) == depth && lines[elseAt].strip().equals("} else {"))) {
        elseAt++;
      }
      return Long.compareUnsigned(v, t) > 0 ? walk(lines, at + 1, v) : walk(lines, elseAt + 1, v);
    }

    private static int indent(String s) {
      int n = 0;
      while (n < s.length() && s.charAt(n) == ' ') {
        n++;
      }
      return n;
    }
  }
}
