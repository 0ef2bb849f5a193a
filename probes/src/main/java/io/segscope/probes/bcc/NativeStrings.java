package io.segscope.probes.bcc;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Native memory a module hands to libbcc (source text, cflags, names, kprobe event names), kept
 * alive until the module is closed and then freed at once. Not thread-safe: the module's lock
 * guards it.
 */
final class NativeStrings implements AutoCloseable {
  private final List<Memory> blocks = new ArrayList<>();

  /** A NUL-terminated UTF-8 copy of {@code text}; a NUL inside the text is rejected. */
  Pointer cstring(String text) {
    if (text.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("pass string to libbcc: contains a NUL character: "
          + text.replace("\0", "\\0"));
    }
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Memory memory = keep(new Memory(bytes.length + 1L));
    memory.write(0, bytes, 0, bytes.length);
    memory.setByte(bytes.length, (byte) 0);
    return memory;
  }

  /** A {@code const char *[]} of copies of {@code texts}, followed by one NULL slot. */
  Pointer cstringArray(List<String> texts) {
    Memory array = keep(new Memory((texts.size() + 1L) * Native.POINTER_SIZE));
    for (int i = 0; i < texts.size(); i++) {
      array.setPointer((long) i * Native.POINTER_SIZE, cstring(texts.get(i)));
    }
    array.setPointer((long) texts.size() * Native.POINTER_SIZE, null);
    return array;
  }

  private Memory keep(Memory memory) {
    blocks.add(memory);
    return memory;
  }

  @Override
  public void close() {
    blocks.forEach(Memory::close);
    blocks.clear();
  }
}
