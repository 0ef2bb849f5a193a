package io.segscope.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.segscope.agent.Logging;
import io.segscope.agent.doctor.Doctor;
import io.segscope.agent.doctor.DoctorReport;
import io.segscope.agent.doctor.DoctorText;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code segscope doctor}: preflight of the host and of the probe plan. */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    description = {
        "Check the host (kernel, BTF, headers, tracefs/debugfs/bpffs, capabilities, libbcc, kallsyms), decide "
            + "which probe mode each path will use and why the better modes are out (real trial attaches), "
            + "then compile, attach and detach the planned probes once.",
        "Exit 0 when at least the gso_tx path can be measured, 1 otherwise (the last line names the "
            + "missing piece)."
    })
public final class DoctorCommand implements Callable<Integer> {

  @Option(names = "--json", description = "Print the report as JSON instead of text.")
  boolean json;

  @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
      converter = ProbeModeOption.Converter.class,
      description = ProbeModeOption.DESCRIPTION)
  ProbeModeOption probeMode;

  /** Hidden, for end-to-end tests of the per-path fallback: PATH:MODE[,PATH:MODE...] fail to load. */
  @Option(names = "--inject-load-failure", paramLabel = "PATH:MODE", hidden = true, defaultValue = "")
  String injectLoadFailure;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    // the checks are the output; logging only what went wrong keeps it readable
    Logging.defaultLevel(Level.WARNING);
    DoctorReport report = Doctor.examine(probeMode.forced(), injectLoadFailure);
    if (json) {
      spec.commandLine().getOut().println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(report));
    } else {
      spec.commandLine().getOut().print(DoctorText.render(report));
    }
    spec.commandLine().getOut().flush();
    return report.ready() ? 0 : 1;
  }
}
