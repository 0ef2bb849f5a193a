package io.segscope.probes;

import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.compile.CompilerProcess;
import java.util.List;

/** Turns the BPF C text into a {@link CompiledObject}: in a child process ({@link #childProcess()}) for the agent. */
@FunctionalInterface
public interface Compiler {
  CompiledObject compile(String name, String text, List<String> cflags) throws ProbeException, InterruptedException;

  /** Compiles in a short-lived child JVM, so LLVM never lives in this process. */
  static Compiler childProcess() {
    CompilerProcess process = CompilerProcess.ofThisJvm();
    return (name, text, cflags) -> {
      try {
        return process.compile(name, text, cflags);
      } catch (CompilerProcess.CompileException e) {
        throw new ProbeException(e.getMessage() + (e.diagnostics().isBlank() ? "" : "\n" + e.diagnostics().strip()), e);
      }
    };
  }
}
