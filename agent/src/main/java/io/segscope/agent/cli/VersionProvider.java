package io.segscope.agent.cli;

import picocli.CommandLine;

/** The version from the jar manifest. */
public final class VersionProvider implements CommandLine.IVersionProvider {
  public static String version() {
    String v = VersionProvider.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public String[] getVersion() {
    return new String[] {"segscope " + version()};
  }
}
