package io.segscope.agent.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, byte for byte: for requests no well-behaved client would send, and
 * for clients bound to a chosen loopback address. Only to loopback.
 */
final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** A response, or what came instead: {@code status} -1 when the server closed without answering. */
  record Response(int status, Map<String, String> headers, byte[] body, String raw) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  RawHttp(String localAddress, int port, int timeoutMillis) throws IOException {
    socket = new Socket();
    socket.setSoTimeout(timeoutMillis);
    if (localAddress != null) {
      socket.bind(new InetSocketAddress(localAddress, 0));
    }
    socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  void send(String text) throws IOException {
    send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Reads one response (Content-Length or chunked body, or up to EOF); status -1 on EOF before a status line. */
  Response read() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int state = 0;
    int b;
    while (state < 4 && (b = in.read()) >= 0) {
      head.write(b);
      state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
          : (b == '\r' ? 1 : 0);
      if (head.size() > 64 * 1024) {
        throw new IOException("read response: headers larger than 64 KiB");
      }
    }
    String headText = head.toString(StandardCharsets.ISO_8859_1);
    if (state < 4) {
      return new Response(-1, Map.of(), new byte[0], headText);
    }
    String[] lines = headText.split("\r\n");
    String[] statusLine = lines[0].split(" ", 3);
    int status = Integer.parseInt(statusLine[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      if (c > 0) {
        headers.put(lines[i].substring(0, c).strip().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).strip());
      }
    }
    byte[] body;
    String length = headers.get("content-length");
    if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = chunked();
    } else if ("close".equalsIgnoreCase(headers.get("connection")) || status >= 400) {
      body = readToEof();
    } else {
      body = new byte[0];
    }
    return new Response(status, headers, body, headText);
  }

  private byte[] chunked() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String size = line();
      int n = Integer.parseInt(size.split(";")[0].strip(), 16);
      if (n == 0) {
        line();
        return body.toByteArray();
      }
      body.write(in.readNBytes(n));
      line();
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream l = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        l.write(b);
      }
    }
    return l.toString(StandardCharsets.ISO_8859_1);
  }

  private byte[] readToEof() throws IOException {
    try {
      return in.readAllBytes();
    } catch (SocketTimeoutException e) {
      return new byte[0];
    }
  }

  /** True when the server has closed the connection (EOF or reset) within the socket timeout. */
  boolean closedByServer() {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
