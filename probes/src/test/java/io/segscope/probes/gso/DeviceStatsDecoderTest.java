package io.segscope.probes.gso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeviceStatsDecoderTest {

  private static final int L = DeviceStatsDecoder.LEAF_SIZE;

  @Test
  void leafSizeMatchesTheCStruct() {
    // struct dev_stats in bpf/common.h: char[16] + name_ns + 7 + 5 + 40 + 18 + 5 + 40 u64
    assertThat(L).isEqualTo(16 + 8 + 8 * 115);
  }

  @Test
  void sumsEveryCpuAndSplitsFieldsInOrder() {
    int cpus = 2;
    ByteBuffer v = ByteBuffer.allocate(L * cpus).order(ByteOrder.nativeOrder());
    for (int c = 0; c < cpus; c++) {
      int base = c * L;
      if (c == 1) {
        v.put(base, "uplink0".getBytes(StandardCharsets.UTF_8));
      }
      for (int i = 0; i < 115; i++) {
        v.putLong(base + 24 + 8 * i, (c + 1) * 1000L + i); // field i on cpu c
      }
    }
    byte[] key = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putInt((int) 4026532000L).putInt(7)
        .array();
    DeviceCounters d = new DeviceStatsDecoder(cpus, 8, L).decode(key, v.array());
    assertThat(d.netns()).as("netns inode is unsigned").isEqualTo(4026532000L);
    assertThat(d.ifindex()).isEqualTo(7);
    assertThat(d.kernelName()).isEqualTo("uplink0");
    // field i sums to 1000+i + 2000+i
    assertThat(d.swSkbs()).isEqualTo(3000);
    assertThat(d.swSegments()).isEqualTo(3002);
    assertThat(d.offloadedBytes()).isEqualTo(3000 + 2 * 6);
    assertThat(d.causes()).containsExactly(3014, 3016, 3018, 3020, 3022);
    assertThat(d.durationSlots()).hasSize(40);
    assertThat(d.durationSlots()[0]).isEqualTo(3000 + 2 * 12);
    assertThat(d.segmentSlots()).hasSize(18);
    assertThat(d.segmentSlots()[0]).isEqualTo(3000 + 2 * 52);
    assertThat(d.xdpCopied()).isEqualTo(3000 + 2 * 70);
    assertThat(d.xdpNanos()).isEqualTo(3000 + 2 * 74);
    assertThat(d.xdpDurationSlots()[39]).isEqualTo(3000 + 2 * 114);
  }

  @Test
  void theNameComesFromTheCpuThatReadItLast() {
    int cpus = 3;
    ByteBuffer v = ByteBuffer.allocate(L * cpus).order(ByteOrder.nativeOrder());
    v.put(0, "low0".getBytes(StandardCharsets.UTF_8)).putLong(16, 500);          // an older device, same key
    v.put(L, "rcv0".getBytes(StandardCharsets.UTF_8)).putLong(L + 16, 900);      // the current one
    v.put(2 * L, "low0".getBytes(StandardCharsets.UTF_8)).putLong(2 * L + 16, 700);
    DeviceCounters d = new DeviceStatsDecoder(cpus, 8, L).decode(new byte[8], v.array());
    assertThat(d.kernelName()).isEqualTo("rcv0");
  }

  @Test
  void sizeMismatchesAreReportedNotDecoded() {
    assertThatThrownBy(() -> new DeviceStatsDecoder(2, 8, L - 8))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("disagree");
    DeviceStatsDecoder d = new DeviceStatsDecoder(2, 8, L);
    assertThatThrownBy(() -> d.decode(new byte[8], new byte[L]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 CPUs");
    assertThatThrownBy(() -> d.decode(new byte[4], new byte[2 * L]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key of 4 bytes");
  }
}
