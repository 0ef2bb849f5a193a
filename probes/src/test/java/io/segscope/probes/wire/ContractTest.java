package io.segscope.probes.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.device.DeviceId;
import io.segscope.probes.program.ProgramText;
import io.segscope.vocabulary.Cause;
import io.segscope.vocabulary.Diagnostic;
import io.segscope.vocabulary.GsoType;
import io.segscope.vocabulary.Site;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The map contract has one source per side and this test holds them together: it parses the
 * programs' {@code common.h} (with the generated duration-bucket part) and checks every enum code,
 * every struct field's name, order and offset, and every struct size against the Java wire
 * classes, then decodes buffers laid out by the C offsets with the Java decoders. Runs without
 * root, BPF or a compiler.
 */
class ContractTest {
  private static final CHeader C =
      CHeader.parse(DurationBuckets.cFunction() + "\n" + ProgramText.resource("bpf/common.h"),
          Map.of());

  record EnumContract(Class<? extends Enum<?>> type, String prefix, String count, boolean exactCount,
      ToIntFunction<Object> code, Function<Object, String> macro) {}

  static Stream<Arguments> enums() {
    return Stream.of(
        Arguments.of(new EnumContract(Cause.class, "CAUSE_", "CAUSES", true, c -> ((Cause) c).code(),
            c -> ((Cause) c).macro())),
        Arguments.of(new EnumContract(Site.class, "SITE_", "SITES", true, c -> ((Site) c).code(),
            c -> ((Site) c).macro())),
        Arguments.of(new EnumContract(GsoType.class, "GTYPE_", "GTYPES", true, c -> ((GsoType) c).code(),
            c -> ((GsoType) c).macro())),
        Arguments.of(new EnumContract(Diagnostic.class, "DIAG_", "DIAGS", false, c -> ((Diagnostic) c).code(),
            c -> ((Diagnostic) c).macro())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("enums")
  void everyEnumConstantIsTheMacroOfTheSameValueAndEveryMacroHasAConstant(EnumContract e) {
    Object[] constants = e.type().getEnumConstants();
    Map<String, Long> java = new LinkedHashMap<>();
    for (Object c : constants) {
      java.put(e.macro().apply(c), (long) e.code().applyAsInt(c));
    }
    Map<String, Long> c = C.definesStartingWith(e.prefix());
    assertThat(c).as("the %s macros of common.h against %s", e.prefix(), e.type().getSimpleName())
        .containsExactlyInAnyOrderEntriesOf(java);
    long n = C.define(e.count()).orElseThrow(() -> new AssertionError("common.h defines no " + e.count()));
    if (e.exactCount()) {
      assertThat(n).as("%s (array size) equals the number of %s", e.count(), e.type().getSimpleName())
          .isEqualTo(constants.length);
    } else {
      assertThat(n).as("%s (array size) holds every %s", e.count(), e.type().getSimpleName())
          .isGreaterThanOrEqualTo(constants.length);
    }
    for (Object k : constants) {
      assertThat(e.code().applyAsInt(k)).as("%s fits in %s", k, e.count()).isBetween(0, (int) n - 1);
    }
  }

  @Test
  void theStructsHaveTheFieldsSizesAndOrderTheJavaClassesDecode() {
    assertThat(spellings(C.struct("dev_key"))).isEqualTo(DeviceKey.FIELDS);
    assertThat(C.struct("dev_key").size()).isEqualTo(DeviceKey.SIZE);
    assertThat(spellings(C.struct("dev_counts"))).isEqualTo(Counts.FIELDS);
    assertThat(C.struct("dev_counts").fields()).allSatisfy(f -> assertThat(f.elementSize()).as(f.name()).isEqualTo(8));
    assertThat(C.struct("dev_counts").size()).isEqualTo(Counts.SIZE);
    assertThat(spellings(C.struct("gso_detail"))).isEqualTo(GsoDetail.FIELDS);
    assertThat(C.struct("gso_detail").size()).isEqualTo(GsoDetail.SIZE);
    assertThat(spellings(C.struct("xdp_detail"))).isEqualTo(XdpDetail.FIELDS);
    assertThat(C.struct("xdp_detail").size()).isEqualTo(XdpDetail.SIZE);
    assertThat(C.struct("dev_name").size()).isEqualTo(NameBytes.SIZE);
    assertThat(C.struct("gso_detail").field("seg").count()).isEqualTo(GsoDetail.SEG_SLOTS);
    assertThat(C.struct("gso_detail").field("dur").count()).isEqualTo(DurationBuckets.SLOTS);
  }

  @Test
  void theKeyDecodesFromItsCOffsets() {
    CHeader.Struct s = C.struct("dev_key");
    ByteBuffer b = buffer(s.size());
    b.putLong(s.field("netns_cookie").offset(), 0x1122334455667788L);
    b.putInt(s.field("netns").offset(), (int) 4026532301L); // above 2^31: read unsigned
    b.putInt(s.field("ifindex").offset(), 42);
    assertThat(DeviceKey.read(b, 0)).isEqualTo(new DeviceId(0x1122334455667788L, 4026532301L, 42));
    ByteBuffer w = buffer(s.size());
    DeviceKey.write(new DeviceId(0x1122334455667788L, 4026532301L, 42), w, 0);
    assertThat(w.array()).isEqualTo(b.array());
  }

  @Test
  void perCpuCountersSumFieldByFieldInTheRecordsOrder() throws Exception {
    CHeader.Struct s = C.struct("dev_counts");
    int cpus = 3;
    int stride = (s.size() + 7) / 8 * 8; // the kernel rounds each CPU's value up to 8 bytes
    ByteBuffer b = buffer(stride * cpus);
    for (int cpu = 0; cpu < cpus; cpu++) {
      for (int i = 0; i < s.fields().size(); i++) {
        b.putLong(cpu * stride + s.fields().get(i).offset(), value(i, cpu));
      }
    }
    Counts c = Counts.sumPerCpu(b, 0, cpus, stride);
    RecordComponent[] components = Counts.class.getRecordComponents();
    assertThat(components).hasSize(s.fields().size());
    for (int i = 0; i < components.length; i++) {
      long expected = value(i, 0) + value(i, 1) + value(i, 2);
      assertThat((long) components[i].getAccessor().invoke(c))
          .as("Counts.%s reads C field %s", components[i].getName(), s.fields().get(i).name()).isEqualTo(expected);
    }
  }

  @Test
  void theGsoDetailDecodesEveryArrayFromItsCOffset() {
    CHeader.Struct s = C.struct("gso_detail");
    ByteBuffer b = filled(s);
    GsoDetail d = GsoDetail.read(b, 0);
    assertThat(d.kernelName()).isEqualTo("eth0\u001c");
    assertThat(d.timed()).isEqualTo(expected(s, "timed", 0));
    assertThat(d.timedNanos()).isEqualTo(expected(s, "timed_ns", 0));
    for (Cause c : Cause.values()) {
      assertThat(d.cause(c)).as("cause %s", c).isEqualTo(expected(s, "cause", c.code()));
    }
    for (Site x : Site.values()) {
      assertThat(d.site(x)).as("site %s", x).isEqualTo(expected(s, "site", x.code()));
    }
    for (GsoType t : GsoType.values()) {
      assertThat(d.gsoType(t)).as("gso type %s", t).isEqualTo(expected(s, "gtype", t.code()));
    }
    for (int i = 0; i < GsoDetail.SEG_SLOTS; i++) {
      assertThat(d.segmentSlots()[i]).as("seg[%d]", i).isEqualTo(expected(s, "seg", i));
    }
    for (int i = 0; i < DurationBuckets.SLOTS; i++) {
      assertThat(d.durationSlots()[i]).as("dur[%d]", i).isEqualTo(expected(s, "dur", i));
    }
  }

  @Test
  void theXdpDetailDecodesFromItsCOffsets() {
    CHeader.Struct s = C.struct("xdp_detail");
    ByteBuffer b = filled(s);
    XdpDetail d = XdpDetail.read(b, 0);
    assertThat(d.kernelName()).isEqualTo("eth0\u001c");
    assertThat(d.timed()).isEqualTo(expected(s, "timed", 0));
    assertThat(d.timedNanos()).isEqualTo(expected(s, "timed_ns", 0));
    for (int i = 0; i < DurationBuckets.SLOTS; i++) {
      assertThat(d.durationSlots()[i]).as("dur[%d]", i).isEqualTo(expected(s, "dur", i));
    }
  }

  @Test
  void everyJavaClassCommonHNamesExists() {
    Matcher m =
        Pattern.compile("Java: (io\\.segscope\\.[a-zA-Z.]+[A-Za-z])").matcher(ProgramText.resource("bpf/common.h"));
    int named = 0;
    while (m.find()) {
      String cls = m.group(1);
      assertThat(exists(cls)).as("common.h names %s", cls).isTrue();
      named++;
    }
    assertThat(named).as("common.h names the Java side of each contract").isGreaterThanOrEqualTo(8);
  }

  @Test
  void theParserRefusesWhatItDoesNotUnderstandInsteadOfGuessing() {
    assertThatThrownBy(() -> CHeader.parse("struct x { u64 a; void *b; };", Map.of()).struct("x"))
        .hasMessageContaining("member 'void *b'");
    assertThatThrownBy(() -> CHeader.parse("struct x { u64 a[NOPE]; };", Map.of()).struct("x"))
        .hasMessageContaining("dimension NOPE of a is not defined");
    CHeader h = CHeader.parse("#define N 3\nstruct x { u32 a; u64 b[N]; u16 c; };", Map.of());
    assertThat(h.struct("x").field("b").offset()).isEqualTo(8);
    assertThat(h.struct("x").field("c").offset()).isEqualTo(32);
    assertThat(h.struct("x").size()).isEqualTo(40);
  }

  private static boolean exists(String cls) {
    try {
      Class.forName(cls);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static List<String> spellings(CHeader.Struct s) {
    return s.fields().stream().map(CHeader.Field::spelling).toList();
  }

  private static ByteBuffer buffer(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
  }

  private static long value(int field, int cpu) {
    return (field + 1) * 1_000_003L + cpu * 7L;
  }

  /** A struct buffer whose u64 at byte offset o holds o * 31 + 5, and whose name is "eth0\x1c". */
  private static ByteBuffer filled(CHeader.Struct s) {
    ByteBuffer b = buffer(s.size());
    for (CHeader.Field f : s.fields()) {
      if (f.elementSize() == 8) {
        for (int i = 0; i < f.count(); i++) {
          int o = f.offset() + 8 * i;
          b.putLong(o, o * 31L + 5);
        }
      }
    }
    byte[] name = "eth0\u001c".getBytes(StandardCharsets.UTF_8);
    b.put(s.field("name").offset(), name);
    return b;
  }

  private static long expected(CHeader.Struct s, String field, int index) {
    CHeader.Field f = s.field(field);
    assertThat(index).isLessThan(f.count());
    return (f.offset() + 8L * index) * 31 + 5;
  }
}
