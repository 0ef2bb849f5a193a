package io.segscope.probes.btf;

import static io.segscope.probes.btf.BtfBuilder.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hand-built BTF for what compilers do not emit: legacy int-encoded bitfields, 32-bit pointers,
 * and corrupt references (out of range, cycles, runaway nesting, overflowing sizes).
 */
class BtfSyntheticTest {
  private static final int STRUCT = 4;
  private static final int UNION = 5;
  private static final int TYPEDEF = 8;
  private static final int CONST = 10;

  enum Order {
    LITTLE(ByteOrder.LITTLE_ENDIAN), BIG(ByteOrder.BIG_ENDIAN);

    final ByteOrder order;

    Order(ByteOrder order) {
      this.order = order;
    }
  }

  @ParameterizedTest
  @EnumSource(Order.class)
  void legacyIntBitfieldsWithoutKindFlag(Order order) throws BtfException {
    BtfBuilder b = new BtfBuilder(order.order);
    int u32 = b.intType("unsigned int", 4, 32, 0);
    int threeBits = b.intType("unsigned int", 4, 3, 2);      // nr_bits 3 at int bit offset 2
    b.composite(STRUCT, "legacy", 8, false,
        b.str("whole"), u32, 0,
        b.str("flags"), threeBits, 32);

    Btf btf = Btf.parse(b.build());

    assertThat(btf.field("legacy.whole")).isEqualTo(new FieldOffset("legacy.whole", 0, 0, 4));
    assertThat(btf.field("legacy.flags")).isEqualTo(new FieldOffset("legacy.flags", 34, 3, 4));
    assertThat(btf.byteOrder()).isEqualTo(order.order);
  }

  @Test
  void pointerSizeFollowsTheLongType() throws BtfException {
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    b.intType("long int", 4, 32, 0);
    int ptr = b.ref(2, "", 0);
    b.composite(STRUCT, "list", 8, false, b.str("next"), ptr, 0, b.str("prev"), ptr, 32);

    Btf btf = Btf.parse(b.build());

    assertThat(btf.field("list.prev")).isEqualTo(new FieldOffset("list.prev", 32, 0, 4));
  }

  @Test
  void unsignedEnumIsZeroExtended() throws BtfException {
    BtfBuilder b = new BtfBuilder(ByteOrder.BIG_ENDIAN);
    b.raw(b.str("flags"), info(6, 2, false), 4, b.str("ALL"), 0xffff_ffff, b.str("ONE"), 1);

    Btf btf = Btf.parse(b.build());

    assertThat(btf.enumValue("ALL")).isEqualTo(0xffff_ffffL);
    assertThat(btf.enumValue("ONE")).isEqualTo(1);
  }

  @Test
  void outOfRangeNamesAndIdsAreRejectedAtParse() {
    BtfBuilder typeName = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    typeName.raw(9999, info(1, 0, false), 4, 32);
    assertRejected(typeName.build(), "name offset 9999 of type id 1 outside the string section (1 bytes) at byte 24");

    BtfBuilder memberName = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int u8 = memberName.intType("u8", 1, 8, 0);
    memberName.composite(STRUCT, "s", 1, false, 0x7fff_0000, u8, 0);
    assertRejected(memberName.build(), "name offset 2147418112 of type id 2 outside the string section (6 bytes)"
        + " at byte 52");

    BtfBuilder memberType = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    memberType.composite(STRUCT, "s", 1, false, memberType.str("m"), 99, 0);
    assertRejected(memberType.build(), "type id 99 referenced by type id 1 out of range (last id 1) at byte 40");

    BtfBuilder ptr = new BtfBuilder(ByteOrder.BIG_ENDIAN);
    ptr.ref(2, "", -1);
    assertRejected(ptr.build(), "type id 4294967295 referenced by type id 1 out of range (last id 1) at byte 32");

    BtfBuilder array = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int i32 = array.intType("int", 4, 32, 0);
    array.array(i32, 7, 4);
    assertRejected(array.build(), "type id 7 referenced by type id 2 out of range (last id 2) at byte 56");
  }

  @Test
  void unknownKindsAndOverlongVlenAreRejectedAtParse() {
    BtfBuilder zero = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    zero.raw(0, info(0, 0, false), 0);
    assertRejected(zero.build(), "unknown kind 0 of type id 1 at byte 28");

    BtfBuilder twenty = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    twenty.intType("int", 4, 32, 0);
    twenty.raw(0, info(20, 0, false), 0);
    assertRejected(twenty.build(), "unknown kind 20 of type id 2 at byte 44");

    BtfBuilder vlen = new BtfBuilder(ByteOrder.BIG_ENDIAN);
    int u8 = vlen.intType("u8", 1, 8, 0);
    vlen.raw(vlen.str("s"), info(STRUCT, 0xffff, false), 1, vlen.str("m"), u8, 0);
    assertRejected(vlen.build(), "type id 2 (STRUCT, vlen 65535) runs past the end of the type section (64)"
        + " at byte 40");
  }

  @Test
  void typedefLoopsAreReportedNotFollowed() throws BtfException {
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int a = b.nextId();
    b.ref(TYPEDEF, "loop_a", a + 1);
    b.ref(CONST, "", a);
    b.composite(STRUCT, "holder", 8, false, b.str("looped"), a, 0);

    Btf btf = Btf.parse(b.build());

    assertThatThrownBy(() -> btf.field("loop_a.x"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve loop_a.x: type reference cycle or chain longer than 32 links from type id 1");
    assertThatThrownBy(() -> btf.field("holder.looped"))
        .hasMessage("resolve holder.looped: type reference cycle or chain longer than 32 links from type id 1");
    assertThatThrownBy(() -> btf.field("holder.looped.x"))
        .hasMessage("resolve holder.looped.x: type reference cycle or chain longer than 32 links from type id 1");
    assertThat(btf.findField("holder.looped")).isEmpty();
    assertThat(btf.structSize("loop_a")).isEmpty();
  }

  @Test
  void structContainingItselfAnonymouslyIsACycle() throws BtfException {
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int self = b.nextId();
    b.composite(STRUCT, "ouroboros", 8, false, 0, self, 0);

    Btf btf = Btf.parse(b.build());

    assertThatThrownBy(() -> btf.field("ouroboros.tail"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve ouroboros.tail: reference cycle: struct ouroboros contains itself through"
            + " anonymous members");
  }

  @Test
  void anonymousNestingIsFollowedAndBounded() throws BtfException {
    // 31 anonymous unions plus the anonymous leaf struct: exactly MAX_NESTING anonymous levels
    Btf btf = Btf.parse(nested(FieldResolver.MAX_NESTING - 1));
    // each union adds its anonymous member's offset of 8 bits
    assertThat(btf.field("level0.leaf"))
        .isEqualTo(new FieldOffset("level0.leaf", 8L * (FieldResolver.MAX_NESTING - 1) + 16, 0, 4));

    Btf deep = Btf.parse(nested(5000));
    assertThatThrownBy(() -> deep.field("level0.leaf"))
        .isInstanceOf(BtfException.class)
        .hasMessageStartingWith("resolve level0.leaf: anonymous members nested deeper than 32 below union (anon)");
  }

  /** level0 > `levels` anonymous unions > a struct with int leaf at bit 16. */
  private static byte[] nested(int levels) {
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int i32 = b.intType("int", 4, 32, 0);
    int leaf = b.composite(STRUCT, "", 8, false, b.str("leaf"), i32, 16);
    int inner = leaf;
    for (int i = 0; i < levels; i++) {
      inner = b.composite(UNION, "", 8, false, 0, inner, 8);
    }
    b.composite(STRUCT, "level0", 8, false, 0, inner, 0);
    return b.build();
  }

  @Test
  void sharedAnonymousMembersAreSearchedOnce() throws BtfException {
    // 30 levels, each with two anonymous members of the next: 2^30 paths, 30 distinct structs
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int i32 = b.intType("int", 4, 32, 0);
    int inner = b.composite(STRUCT, "", 4, false, b.str("leaf"), i32, 0);
    for (int i = 0; i < 30; i++) {
      inner = b.composite(STRUCT, "", 8, false, 0, inner, 0, 0, inner, 32);
    }
    b.composite(STRUCT, "fan", 8, false, 0, inner, 0);
    Btf btf = Btf.parse(b.build());

    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      assertThatThrownBy(() -> btf.field("fan.absent"))
          .hasMessage("resolve fan.absent: no member 'absent' in struct fan");
      assertThat(btf.field("fan.leaf").bitOffset()).isZero();
    });
  }

  @Test
  void overflowingAndLoopingArraySizesAreRejected() throws BtfException {
    BtfBuilder b = new BtfBuilder(ByteOrder.LITTLE_ENDIAN);
    int u64 = b.intType("unsigned long long", 8, 64, 0);
    int inner = b.array(u64, u64, -1);
    int outer = b.array(inner, u64, -1);
    int looping = b.nextId();
    b.array(looping, u64, 2);
    b.composite(STRUCT, "huge", 8, false, b.str("big"), outer, 0, b.str("loop"), looping, 0);

    Btf btf = Btf.parse(b.build());

    assertThatThrownBy(() -> btf.field("huge.big"))
        .isInstanceOf(BtfException.class)
        .hasMessage("resolve huge.big: size of type id 3 overflows 64 bits");
    assertThatThrownBy(() -> btf.field("huge.loop"))
        .hasMessage("resolve huge.loop: type reference cycle or chain longer than 32 links from type id 4");
  }

  @Test
  void loadNamesTheFile(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.btf");
    Files.write(good, BtfFixtureTest.fixture("fixture-le.btf"));
    Path cut = dir.resolve("cut.btf");
    Files.write(cut, Arrays.copyOf(BtfFixtureTest.fixture("fixture-le.btf"), 10));

    Btf btf = Btf.load(good);

    assertThat(btf.source()).isEqualTo(good.toString());
    assertThat(btf.field("packet.len").byteOffset()).isEqualTo(24);
    assertThatThrownBy(() -> Btf.load(cut))
        .isInstanceOf(BtfException.class)
        .hasMessage("parse BTF " + cut + ": header truncated: blob has 10 bytes, header needs 24 at byte 10");
    assertThatThrownBy(() -> Btf.load(dir.resolve("absent.btf")))
        .isInstanceOf(BtfException.class)
        .hasMessageStartingWith("read BTF " + dir.resolve("absent.btf") + ": java.nio.file.NoSuchFileException");
  }

  private static void assertRejected(byte[] bytes, String what) {
    assertThatThrownBy(() -> Btf.parse(bytes))
        .isInstanceOf(BtfException.class)
        .hasMessage("parse BTF <bytes>: " + what);
  }
}
