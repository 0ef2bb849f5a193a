package io.segscope.exporters.model;

/**
 * What this agent is and runs on; exported as {@code segscope_build_info}.
 *
 * @param version the agent's version
 * @param libbcc the libbcc version bound at run time
 * @param kernel the running kernel's release ({@code uname -r})
 */
public record BuildInfo(String version, String libbcc, String kernel) {
  /** The value used when a field is not known yet. */
  public static final String UNKNOWN = "unknown";

  public BuildInfo {
    Checks.notBlank(version, "BuildInfo.version");
    Checks.notBlank(libbcc, "BuildInfo.libbcc");
    Checks.notBlank(kernel, "BuildInfo.kernel");
  }

  /** A build info whose every field is {@value #UNKNOWN}. */
  public static BuildInfo unknown() {
    return new BuildInfo(UNKNOWN, UNKNOWN, UNKNOWN);
  }
}
