package io.segscope.probes.btf;

/**
 * A BTF blob could not be read or parsed, or a name could not be resolved in it.
 *
 * <p>Messages name the failing thing: {@code "parse BTF <source>: <what> at byte <n>"} for malformed
 * input (the byte is an absolute offset into the blob), {@code "read BTF <file>: <cause>"} when the
 * file cannot be read, and {@code "resolve <path>: <what>"} for a field, enumerator or struct that
 * does not resolve.
 */
public final class BtfException extends Exception {
  private static final long serialVersionUID = 1L;

  public BtfException(String message) {
    super(message);
  }

  public BtfException(String message, Throwable cause) {
    super(message, cause);
  }

  static BtfException parse(String source, String what, long atByte) {
    return new BtfException("parse BTF " + source + ": " + what + " at byte " + atByte);
  }

  static BtfException resolve(String path, String what) {
    return new BtfException("resolve " + path + ": " + what);
  }
}
