package io.segscope.agent.cli;

import io.segscope.agent.advice.AdviceIntent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags {@code run} and {@code report} share to mark findings as intended (a picocli mixin):
 * --advice-accept and --advice-config.
 */
public final class AdviceIntentOptions {

  @Option(names = "--advice-accept", paramLabel = "RULE:NETNS/DEVICE-GLOB",
      description = "A finding that is intended: recommendations of RULE (* for any) about a device whose name "
          + "matches DEVICE-GLOB in a namespace matching NETNS (its name, its inode, or root) are still measured "
          + "and exported, with state=\"accepted\", but never logged or alerted as open. Globs: *, ?, [a-z], "
          + "{a,b}; repeatable. E.g. offload_disabled:*/vxlan.calico")
  List<String> adviceAccept = new ArrayList<>();

  @Option(names = "--advice-config", paramLabel = "FILE",
      description = "A YAML file whose 'accept' list holds more of --advice-accept's entries (docs/recommendations.md); "
          + "read once at start.")
  Path adviceConfig;

  /**
   * The accepted findings of both flags.
   *
   * @throws AdviceIntent.IntentException naming the flag or file entry that is wrong, or the bound exceeded
   */
  AdviceIntent intent() throws AdviceIntent.IntentException {
    return AdviceIntent.of(adviceAccept, adviceConfig);
  }
}
