package io.segscope.probes;

import com.sun.jna.Memory;
import io.segscope.device.DeviceId;
import io.segscope.host.sys.SysException;
import io.segscope.probes.load.LoadedObject;
import io.segscope.probes.load.MapReader;
import io.segscope.probes.sys.Bpf;
import io.segscope.probes.wire.Counts;
import io.segscope.probes.wire.DeviceKey;
import io.segscope.probes.wire.GsoDetail;
import io.segscope.probes.wire.NameBytes;
import io.segscope.probes.wire.XdpDetail;
import io.segscope.vocabulary.Diagnostic;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-device maps of one {@link ProbeSession} as the session reads them: streaming readers of
 * {@code dev_counts}, {@code gso_detail}, {@code xdp_detail} and {@code dev_names} (per-CPU values summed),
 * the diagnostics, and the deletion of a vanished device's entries. Not thread-safe: the session calls it
 * under its lock.
 */
final class SessionMaps implements AutoCloseable {
  private final LoadedObject object;
  private final int cpus;
  private final MapReader counts;
  private final MapReader gsoDetails;
  private final MapReader xdpDetails;
  private final MapReader names;

  /** One read of every map, keyed by device. */
  record Raw(Map<DeviceId, String> names, Map<DeviceId, Counts> counts, Map<DeviceId, GsoDetail.Summed> gso,
      Map<DeviceId, XdpDetail> xdp) {}

  SessionMaps(LoadedObject object, int cpus) {
    this.object = object;
    this.cpus = cpus;
    this.counts = reader("dev_counts", DeviceKey.SIZE, MapReader.perCpuBytes(Counts.SIZE, cpus));
    this.gsoDetails = reader("gso_detail", DeviceKey.SIZE, MapReader.perCpuBytes(GsoDetail.SIZE, cpus));
    this.xdpDetails = object.hasMap("xdp_detail") ? reader("xdp_detail", DeviceKey.SIZE, XdpDetail.SIZE) : null;
    this.names = reader("dev_names", DeviceKey.SIZE, 16);
  }

  private MapReader reader(String map, int keySize, int valueBytes) {
    return new MapReader(object.mapFd(map), map, keySize, valueBytes);
  }

  MapReader counts() {
    return counts;
  }

  MapReader gsoDetails() {
    return gsoDetails;
  }

  /** The names, then the counters, then the details (a mutable copy each). */
  Raw read() throws SysException {
    Map<DeviceId, String> nameOf = new HashMap<>();
    names.forEach((k, ko, v, vo) -> nameOf.put(DeviceKey.read(k, ko), nameAt(v, vo)));
    // the queue counts before the segmentation counts: a super-packet queued and segmented between the two
    // reads then shows as segmented but not yet queued (offloaded too low for one read: it never goes
    // backwards, so it catches up), never as queued and not segmented (offloaded too high for good)
    int stride = (Counts.SIZE + 7) & ~7;
    Map<DeviceId, Counts> all = new LinkedHashMap<>();
    counts.forEach((k, ko, v, vo) -> all.put(DeviceKey.read(k, ko), Counts.sumPerCpu(v, vo, cpus, stride)));
    Map<DeviceId, GsoDetail.Summed> gso = new HashMap<>();
    int gstride = (GsoDetail.SIZE + 7) & ~7;
    gsoDetails.forEach((k, ko, v, vo) -> gso.put(DeviceKey.read(k, ko), GsoDetail.sumPerCpu(v, vo, cpus, gstride)));
    Map<DeviceId, XdpDetail> xdp = new HashMap<>();
    if (xdpDetails != null) {
      xdpDetails.forEach((k, ko, v, vo) -> xdp.put(DeviceKey.read(k, ko), XdpDetail.read(v, vo)));
    }
    return new Raw(nameOf, all, gso, xdp);
  }

  private static String nameAt(ByteBuffer v, int offset) {
    byte[] b = new byte[16];
    for (int i = 0; i < 16; i++) {
      b[i] = v.get(offset + i);
    }
    int n = 0;
    while (n < 16 && b[n] != 0) {
      n++;
    }
    return NameBytes.text(Arrays.copyOf(b, n));
  }

  /** Every diagnostic's count, summed over CPUs. */
  Map<Diagnostic, Long> diagnostics() throws SysException {
    Map<Diagnostic, Long> d = new EnumMap<>(Diagnostic.class);
    int fd = object.mapFd("diag");
    try (Memory key = new Memory(4); Memory value = new Memory((long) cpus * 8)) {
      for (Diagnostic x : Diagnostic.values()) {
        key.setInt(0, x.code());
        long sum = 0;
        if (Bpf.mapLookup(fd, key, value)) {
          ByteBuffer b = value.getByteBuffer(0, (long) cpus * 8).order(ByteOrder.nativeOrder());
          for (int c = 0; c < cpus; c++) {
            sum += b.getLong(c * 8);
          }
        }
        d.put(x, sum);
      }
    }
    return d;
  }

  /** Deletes {@code key}'s entries from every per-device map. */
  void forget(DeviceId key) throws SysException {
    try (Memory k = new Memory(DeviceKey.SIZE)) {
      DeviceKey.write(key, k.getByteBuffer(0, DeviceKey.SIZE).order(ByteOrder.nativeOrder()), 0);
      for (String map : List.of("dev_counts", "gso_detail", "dev_names", "xdp_detail")) {
        if (object.hasMap(map)) {
          Bpf.mapDelete(object.mapFd(map), k);
        }
      }
    }
  }

  @Override
  public void close() {
    counts.close();
    gsoDetails.close();
    names.close();
    if (xdpDetails != null) {
      xdpDetails.close();
    }
  }
}
