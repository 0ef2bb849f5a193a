package io.segscope.agent.inventory.wire;

import io.segscope.host.names.NameCodec;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The exact bytes of a file name. A {@link Path} read from a directory keeps the bytes the kernel
 * gave, but {@code toString()} decodes them with the platform charset and loses what is not valid
 * there; the path's URI carries every byte percent-encoded, so it is the byte-exact public view.
 */
public final class PathBytes {
  private PathBytes() {}

  /** Every byte of {@code path} made absolute (no trailing slash, except for "/"). */
  public static byte[] of(Path path) {
    String raw = path.toAbsolutePath().toUri().getRawPath();
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' && i + 2 < raw.length()) {
        out.write(Integer.parseInt(raw.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c); // the URI's raw path is ASCII: everything else is percent-encoded
      }
    }
    byte[] b = out.toByteArray();
    int len = b.length;
    while (len > 1 && b[len - 1] == '/') {
      len--; // toUri() appends '/' when the path is a directory
    }
    return Arrays.copyOf(b, len);
  }

  /** The last element of {@code path} in segscope's name form ({@link NameCodec}). */
  public static String fileName(Path path) {
    byte[] b = of(path);
    int start = b.length;
    while (start > 0 && b[start - 1] != '/') {
      start--;
    }
    return NameCodec.decode(b, start, b.length - start);
  }
}
