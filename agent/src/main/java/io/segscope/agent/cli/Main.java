package io.segscope.agent.cli;

import io.segscope.agent.Logging;
import io.segscope.agent.StopSignal;

/** Entry point of the {@code segscope} jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // first: from here on a SIGINT/SIGTERM stops `run` cleanly with 0 (docs/runbook.md#stopping)
    StopSignal.install(args.length > 0 && "run".equals(args[0]));
    Logging.configure();
    int code = SegscopeCommand.commandLine().execute(args);
    System.exit(code);
  }
}
