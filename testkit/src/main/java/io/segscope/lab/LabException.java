package io.segscope.lab;

/**
 * A lab operation failed: a command exited non-zero, timed out, or its output could not be read.
 * The message names the verb, the object and the cause, and for commands carries the full command
 * line and its standard error.
 */
public final class LabException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LabException(String message) {
    super(message);
  }

  public LabException(String message, Throwable cause) {
    super(message, cause);
  }
}
