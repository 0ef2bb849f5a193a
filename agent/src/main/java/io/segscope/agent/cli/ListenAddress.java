package io.segscope.agent.cli;

import picocli.CommandLine;

/** {@code HOST:PORT} (or {@code :PORT}, {@code [v6]:PORT}) for the HTTP server. */
public record ListenAddress(String host, int port) {

  public static final class Converter implements CommandLine.ITypeConverter<ListenAddress> {
    @Override
    public ListenAddress convert(String value) {
      return parse(value);
    }
  }

  public static ListenAddress parse(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not HOST:PORT (e.g. 0.0.0.0:9810, :9810)");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isEmpty()) {
      host = "0.0.0.0";
    }
    if (host.length() > Bounds.HOST_MAX || !host.matches("[A-Za-z0-9.:%_-]+")) {
      throw new CommandLine.TypeConversionException("'" + value + "': the host must be an IP address or a host name "
          + "of at most " + Bounds.HOST_MAX + " characters");
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException("'" + value + "': the port is not a number");
    }
    if (port < 0 || port > 65535) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "': the port is outside the bound 0..65535 (0: any free port)");
    }
    return new ListenAddress(host, port);
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
