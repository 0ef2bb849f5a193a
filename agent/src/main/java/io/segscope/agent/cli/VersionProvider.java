package io.segscope.agent.cli;

import io.segscope.agent.version.Version;
import picocli.CommandLine;

/** {@code --version}: the version from the jar manifest. */
public final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {"segscope " + Version.current()};
  }
}
