package io.segscope.agent.cli;

import io.segscope.agent.inventory.InventoryConfig;
import io.segscope.agent.telemetry.DeviceSelection;
import io.segscope.probes.TracepointAttach;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The flags {@code run} and {@code report} share (a picocli mixin): where namespaces are named from
 * (--netns-dir), how tracepoints attach (--tracepoint-attach) and which devices are reported
 * (--device-include, --device-exclude, --max-devices). One definition, one set of bounds and
 * converters ({@link Bounds}) for both commands.
 */
public final class InventoryOptions {

  @Option(names = "--netns-dir", paramLabel = "DIR", converter = Bounds.NetnsDir.class,
      description = "Also name network namespaces from the bind mounts in DIR, besides /run/netns; repeatable "
          + "up to 16 times, absolute paths (e.g. /run/docker/netns on Docker hosts).")
  List<Path> netnsDirs = new ArrayList<>();

  @Option(names = "--tracepoint-attach", paramLabel = "TYPE", defaultValue = "auto",
      description = "How tracepoint programs attach: auto (the cheapest this kernel allows: tp_btf, then raw_tp, "
          + "then tracepoint), or one of tp_btf, raw_tp, tracepoint (fails the start if the kernel refuses it) "
          + "(default: ${DEFAULT-VALUE}).")
  String tracepointAttach;

  @Option(names = "--device-include", paramLabel = "REGEX", converter = Bounds.Regex.class,
      description = "Report only devices whose name this Java regular expression finds (anchor with ^...$); "
          + "metrics, API, advice and report alike.")
  Pattern deviceInclude;

  @Option(names = "--device-exclude", paramLabel = "REGEX", converter = Bounds.Regex.class,
      description = "Do not report devices whose name this Java regular expression finds; wins over "
          + "--device-include.")
  Pattern deviceExclude;

  @Option(names = "--max-devices", paramLabel = "N", defaultValue = "4096", converter = Bounds.MaxDevices.class,
      description = "Report at most N devices (1..100000); devices beyond are left out (run counts them in "
          + "segscope_devices_dropped_total) (default: ${DEFAULT-VALUE}).")
  int maxDevices;

  /** The repeat-count bound of --netns-dir: a usage error (exit 2) of {@code cmd}. */
  void checkBounds(CommandLine cmd) {
    if (netnsDirs.size() > Bounds.NETNS_DIRS_MAX) {
      throw Bounds.violated(cmd, "--netns-dir is given " + netnsDirs.size() + " times: the bound is "
          + Bounds.NETNS_DIRS_MAX);
    }
  }

  /** The first --netns-dir that exists but is not a directory, as "--netns-dir DIR is not a directory". */
  Optional<String> notADirectory() {
    for (Path d : netnsDirs) {
      if (Files.exists(d) && !Files.isDirectory(d)) {
        return Optional.of("--netns-dir " + d + " is not a directory");
      }
    }
    return Optional.empty();
  }

  /**
   * --tracepoint-attach: empty for auto.
   *
   * @throws IllegalArgumentException naming the value when it is no attach type
   */
  Optional<TracepointAttach> tracepointAttach() {
    return tracepointAttach.equals("auto") ? Optional.empty() : Optional.of(TracepointAttach.parse(tracepointAttach));
  }

  /** The extra namespace directories, in the order given. */
  List<Path> netnsDirs() {
    return List.copyOf(netnsDirs);
  }

  /** The device selection of --device-include, --device-exclude and --max-devices. */
  DeviceSelection.Config devices() {
    return new DeviceSelection.Config(Optional.ofNullable(deviceInclude), Optional.ofNullable(deviceExclude),
        maxDevices);
  }

  /** The inventory's configuration: the defaults plus the --netns-dir directories. */
  InventoryConfig inventoryConfig() {
    return InventoryConfig.defaults().plusNamedNetnsDirs(netnsDirs);
  }
}
