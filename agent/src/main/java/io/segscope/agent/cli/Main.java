package io.segscope.agent.cli;

import io.segscope.agent.Logging;

/** Entry point of the {@code segscope} jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    Logging.configure();
    int code = SegscopeCommand.commandLine().execute(args);
    System.exit(code);
  }
}
