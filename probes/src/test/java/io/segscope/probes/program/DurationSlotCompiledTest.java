package io.segscope.probes.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.probes.wire.DurationBuckets;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated {@code dur_slot} as the kernel runs it, against the Prometheus native bucket definition
 * decided with integers only.
 *
 * <p>The C text {@link DurationBuckets#cFunction()} (the very text {@link ProgramText} puts into the
 * BPF program) is compiled with clang for this host and called for every value below. The expected
 * slot comes from the definition alone, no floating point and no code of {@link DurationBuckets}:
 * native schema-3 bucket {@code i} holds (2^((i-1)/8), 2^(i/8)] seconds, and a duration of {@code v}
 * ns is at most 2^(i/8) s exactly when {@code v^8 * 2^max(0,-i) <= 10^72 * 2^max(0,i)} (both sides
 * raised to the 8th power, times 10^72 = (10^9)^8: exact in {@link BigInteger}). The boundary of every
 * bucket of the whole range, MIN_INDEX - 1 (the zero bucket's threshold) to MAX_INDEX, is found from
 * that inequality by bisection, and the boundary itself, one below and one above are checked, as
 * well as 0, the values just around whole seconds and the top of the u64 range (clamped into the
 * last slot).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurationSlotCompiledTest {
  private static final BigInteger TEN_POW_72 = BigInteger.TEN.pow(72);

  private Path binary;

  @BeforeAll
  void compileTheGeneratedSearch(@TempDir Path dir) throws Exception {
    binary = HostC.compile(dir, "dur_slot", String.join("\n",
        DurationBuckets.cFunction(),
        "int main(void)",
        "{",
        "    char line[64];",
        "    while (fgets(line, sizeof line, stdin))",
        "        printf(\"%llu\\n\", dur_slot(strtoull(line, 0, 10)));",
        "    return 0;",
        "}",
        ""), "compiling the generated dur_slot for the host");
  }

  /** v ns <= 2^(i/8) s, decided exactly. */
  static boolean atMostBound(BigInteger v, int i) {
    BigInteger left = v.pow(8).shiftLeft(Math.max(0, -i));
    BigInteger right = TEN_POW_72.shiftLeft(Math.max(0, i));
    return left.compareTo(right) <= 0;
  }

  /** The largest whole number of ns that is at most 2^(i/8) s: the last integer of bucket i. */
  static long lastNanosOf(int i) {
    long lo = 0; // atMostBound(lo) holds
    long hi = 1L << 40; // > 2^9 s in ns: atMostBound(hi) fails for every i <= 72
    while (hi - lo > 1) {
      long mid = (lo + hi) >>> 1;
      if (atMostBound(BigInteger.valueOf(mid), i)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The native index of the bucket holding v ns (v >= 1): the smallest i with v ns <= 2^(i/8) s. */
  static int nativeIndexOf(BigInteger v) {
    int i = -400; // 2^-50 s < 1 ns
    while (!atMostBound(v, i)) {
      i++;
    }
    return i;
  }

  /** The slot the definition puts v in: 0 = the zero bucket, then one per native index, clamped at the top. */
  static int expectedSlot(BigInteger v) {
    if (v.signum() == 0) {
      return 0;
    }
    int index = nativeIndexOf(v);
    if (index <= DurationBuckets.MIN_INDEX - 1) {
      return 0; // v <= the zero threshold 2^((MIN_INDEX - 1)/8) s
    }
    return Math.min(index, DurationBuckets.MAX_INDEX) - DurationBuckets.MIN_INDEX + 1;
  }

  @Test
  void theCompiledSearchPutsEveryBoundaryAndItsNeighboursInTheNativeBucket() throws Exception {
    List<BigInteger> values = new ArrayList<>();
    for (int i = DurationBuckets.MIN_INDEX - 1; i <= DurationBuckets.MAX_INDEX; i++) {
      long last = lastNanosOf(i);
      for (long v = Math.max(0, last - 1); v <= last + 1; v++) {
        values.add(BigInteger.valueOf(v));
      }
    }
    for (long s = 1; s <= 512; s *= 2) {
      for (long v : new long[] {s * 1_000_000_000L - 1, s * 1_000_000_000L, s * 1_000_000_000L + 1}) {
        values.add(BigInteger.valueOf(v));
      }
    }
    BigInteger two64 = BigInteger.ONE.shiftLeft(64);
    for (BigInteger v : List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(Long.MAX_VALUE),
        BigInteger.ONE.shiftLeft(63), two64.subtract(BigInteger.ONE))) {
      values.add(v);
    }
    List<Long> slots = callCompiled(values);
    assertThat(slots).hasSameSizeAs(values);
    int checked = 0;
    for (int k = 0; k < values.size(); k++) {
      BigInteger v = values.get(k);
      int expected = expectedSlot(v);
      assertThat(slots.get(k)).as("compiled dur_slot(%s ns)", v).isEqualTo((long) expected);
      assertThat(DurationBuckets.slotOf(v.longValue())).as("DurationBuckets.slotOf(%s ns)", v).isEqualTo(expected);
      checked++;
    }
    assertThat(checked).isGreaterThan(3 * (DurationBuckets.MAX_INDEX - DurationBuckets.MIN_INDEX));
  }

  @Test
  void everySlotHoldsExactlyItsNativeBucketsIntegers() throws Exception {
    // the slot of the last integer of bucket i is i's slot, and the next integer is in a later slot
    // (or the same when bucket i+1 has no integer): checked via the exact boundary itself
    for (int i = DurationBuckets.MIN_INDEX; i <= DurationBuckets.MAX_INDEX; i++) {
      long last = lastNanosOf(i);
      long previousLast = lastNanosOf(i - 1);
      if (last == previousLast) {
        continue; // bucket i is narrower than 1 ns here and holds no integer
      }
      int slot = i - DurationBuckets.MIN_INDEX + 1;
      assertThat(DurationBuckets.nativeIndex(slot)).isEqualTo(i);
      assertThat(expectedSlot(BigInteger.valueOf(previousLast + 1))).as("first integer of %d", i).isEqualTo(slot);
      assertThat(expectedSlot(BigInteger.valueOf(last))).as("last integer of %d", i).isEqualTo(slot);
      assertThat(DurationBuckets.upperBoundNanos(i)).as("threshold of bucket %d", i).isEqualTo(last);
    }
    assertThat(DurationBuckets.SLOTS).isEqualTo(DurationBuckets.MAX_INDEX - DurationBuckets.MIN_INDEX + 2);
  }

  @Test
  void theProgramTextCarriesThisSearch() throws Exception {
    CallSites sites = CallSites.resolve(Kallsyms.parse(
        List.of("ffffffff81000000 T validate_xmit_skb", "ffffffff81000400 T other"), "recorded"));
    assertThat(ProgramText.of(sites)).contains(DurationBuckets.cFunction());
  }

  private List<Long> callCompiled(List<BigInteger> values) throws Exception {
    StringBuilder in = new StringBuilder();
    values.forEach(v -> in.append(v).append('\n'));
    List<Long> out = new ArrayList<>();
    for (String line : HostC.run(List.of(binary.toString()), in.toString()).split("\n")) {
      if (!line.isBlank()) {
        out.add(Long.parseLong(line.strip()));
      }
    }
    return out;
  }
}
