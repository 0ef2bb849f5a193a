package io.segscope.probes;

/** A probe could not be set up or read; the message says what failed and why. */
public final class ProbeException extends Exception {
  private static final long serialVersionUID = 1L;

  public ProbeException(String message) {
    super(message);
  }

  public ProbeException(String message, Throwable cause) {
    super(message, cause);
  }
}
