package io.segscope.agent.http;

/** A request the API cannot answer: 400 with this message in a JSON body. */
final class BadRequest extends Exception {
  private static final long serialVersionUID = 1L;

  BadRequest(String message) {
    super(message);
  }

  /** A client-supplied value as it appears in a message: at most 64 characters. */
  static String quote(String value) {
    String v = value.length() > 64 ? value.substring(0, 64) + "..." : value;
    return "'" + v + "'";
  }
}
