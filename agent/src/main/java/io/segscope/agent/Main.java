package io.segscope.agent;

import io.segscope.agent.cli.SegscopeCommand;
import picocli.CommandLine;

/** Entry point of the {@code segscope} jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    StopSignal.install(); // first: a SIGINT/SIGTERM from here on is handled (docs/runbook.md#stopping)
    Logging.configure();
    int code = SegscopeCommand.commandLine().execute(args);
    System.exit(code);
  }
}
