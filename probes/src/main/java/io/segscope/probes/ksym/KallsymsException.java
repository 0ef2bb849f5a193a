package io.segscope.probes.ksym;

/** /proc/kallsyms could not be read or parsed, or its addresses are hidden. */
public final class KallsymsException extends Exception {
  private static final long serialVersionUID = 1L;

  public KallsymsException(String message) {
    super(message);
  }

  public KallsymsException(String message, Throwable cause) {
    super(message, cause);
  }
}
