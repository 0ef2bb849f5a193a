package io.segscope.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code segscope}: the root command; its subcommands do the work. */
@Command(
    name = "segscope",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Measures what software GSO and generic-XDP copies cost this host, and why.",
    subcommands = {RunCommand.class, ReportCommand.class, DoctorCommand.class, CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success (run: stopped by SIGINT/SIGTERM; doctor: ready)",
        "1:failed at run time, or doctor: not ready (the message says what is missing)",
        "2:bad flags or arguments"
    })
public final class SegscopeCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command: run, report, doctor, or --help");
  }

  /** The configured command line: usage errors exit 2, failures print one line and exit 1. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new SegscopeCommand());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      cmd.getErr().println("segscope: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
      return 1;
    });
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine cmd = ex.getCommandLine();
      cmd.getErr().println("segscope: " + ex.getMessage());
      cmd.usage(cmd.getErr());
      return 2;
    });
    return cl;
  }
}
