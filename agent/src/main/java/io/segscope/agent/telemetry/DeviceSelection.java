package io.segscope.agent.telemetry;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.device.DeviceId;
import io.segscope.probes.wire.DeviceReading;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which devices segscope reports, in metrics, the API and advice alike: those whose name (in
 * segscope's name form) the {@code --device-include} regular expression finds (all when absent)
 * and the {@code --device-exclude} one does not (exclude wins), and of those at most
 * {@code --max-devices}. Devices already reported keep their place, so series never flap; when the
 * limit is reached a new device is left out and counted once (again if it disappears and comes
 * back). Thread-safe: the reader selects, the API views.
 */
public final class DeviceSelection {

  /**
   * @param include devices whose name it finds are reported (empty: every device)
   * @param exclude devices whose name it finds are not (wins over include)
   * @param maxDevices at most this many devices are reported
   */
  public record Config(Optional<Pattern> include, Optional<Pattern> exclude, int maxDevices) {
    /** The bounds of --max-devices. */
    public static final int MIN_DEVICES = 1;
    public static final int MAX_DEVICES = 100_000;
    public static final int DEFAULT_MAX_DEVICES = 4096;
    /** Every device, up to the default limit. */
    public static final Config DEFAULT = new Config(Optional.empty(), Optional.empty(), DEFAULT_MAX_DEVICES);

    public Config {
      if (maxDevices < MIN_DEVICES || maxDevices > MAX_DEVICES) {
        throw new IllegalArgumentException("select devices: max devices " + maxDevices + " is outside "
            + MIN_DEVICES + ".." + MAX_DEVICES);
      }
    }

    /** Whether a device of this name passes include and exclude. */
    public boolean matches(String name) {
      if (exclude.isPresent() && exclude.get().matcher(name).find()) {
        return false;
      }
      return include.isEmpty() || include.get().matcher(name).find();
    }
  }

  /** One read's devices after the selection. */
  public record Selected(Inventory inventory, List<DeviceReading> counters) {}

  private final Config config;
  private final Set<DeviceId> reported = new LinkedHashSet<>();
  private final Set<DeviceId> refused = new HashSet<>();
  private volatile long dropped;
  private volatile int reportedCount;

  public DeviceSelection(Config config) {
    this.config = config;
  }

  /**
   * The inventory and the counted devices reduced to the reported ones. A counted device the
   * inventory does not know is judged by the name the kernel recorded.
   */
  public synchronized Selected select(Inventory inventory, List<DeviceReading> counted) {
    Map<DeviceId, String> candidates = new LinkedHashMap<>();
    for (Device d : inventory.devices()) {
      candidates.put(d.id().withoutCookie(), d.name());
    }
    for (DeviceReading c : counted) {
      candidates.putIfAbsent(c.id().withoutCookie(), c.kernelName());
    }
    Set<DeviceId> present = new LinkedHashSet<>();
    candidates.forEach((k, name) -> {
      if (config.matches(name)) {
        present.add(k);
      }
    });
    reported.retainAll(present);
    refused.retainAll(present);
    for (DeviceId k : present) {
      if (reported.contains(k)) {
        continue;
      }
      if (reported.size() < config.maxDevices()) {
        reported.add(k);
        refused.remove(k);
      } else if (refused.add(k)) {
        dropped++;
      }
    }
    reportedCount = reported.size();
    if (reported.size() == candidates.size()) {
      return new Selected(inventory, counted);
    }
    List<Device> devices = new ArrayList<>();
    for (Device d : inventory.devices()) {
      if (reported.contains(d.id().withoutCookie())) {
        devices.add(d);
      }
    }
    List<DeviceReading> counters = new ArrayList<>();
    for (DeviceReading c : counted) {
      if (reported.contains(c.id().withoutCookie())) {
        counters.add(c);
      }
    }
    return new Selected(with(inventory, devices), counters);
  }

  /**
   * The live inventory as the selection sees it, without changing what is reported (for the API
   * between two reads): matching devices already reported, then new matching ones while the limit
   * leaves room.
   */
  public synchronized Inventory view(Inventory inventory) {
    List<Device> devices = new ArrayList<>();
    List<Device> fresh = new ArrayList<>();
    for (Device d : inventory.devices()) {
      if (config.matches(d.name())) {
        (reported.contains(d.id().withoutCookie()) ? devices : fresh).add(d);
      }
    }
    for (Device d : fresh) {
      if (devices.size() >= config.maxDevices()) {
        break;
      }
      devices.add(d);
    }
    return devices.size() == inventory.devices().size() ? inventory : with(inventory, devices);
  }

  /** The inventory with only the selected devices: its namespaces, routes and qdiscs all kept (the rules read them). */
  private static Inventory with(Inventory inventory, List<Device> devices) {
    return inventory.withDevices(devices);
  }

  /** Devices left out because --max-devices was reached, each counted once per appearance. */
  public long dropped() {
    return dropped;
  }

  /** Devices reported after the last selection. */
  public int reported() {
    return reportedCount;
  }
}
