package io.segscope.probes.program;

import io.segscope.probes.wire.DurationBuckets;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The one BPF C text segscope compiles: the generated parts (duration buckets, call-site ranges) and
 * the resources {@code bpf/common.h}, {@code bpf/gso.c}, {@code bpf/xdp.c}. The -D flags (kernel
 * layout, modes, attach flavour, map sizes) decide what of it is compiled in.
 */
public final class ProgramText {
  /** The program files, in the order they follow common.h. */
  public static final List<String> FILES = List.of("bpf/gso.c", "bpf/xdp.c");

  private ProgramText() {}

  /** The whole text for a kernel whose call sites are {@code sites}. */
  public static String of(CallSites sites) {
    StringBuilder text = new StringBuilder("#include <uapi/linux/ptrace.h>\n");
    text.append(DurationBuckets.cFunction()).append('\n');
    text.append(sites.siteFunction()).append('\n');
    text.append(sites.txDropFunction()).append('\n');
    text.append(resource("bpf/common.h"));
    for (String f : FILES) {
      text.append('\n').append(resource(f));
    }
    return text.toString();
  }

  /** A program resource's text. */
  public static String resource(String name) {
    try (InputStream in = ProgramText.class.getResourceAsStream("/io/segscope/probes/" + name)) {
      if (in == null) {
        throw new IllegalStateException("load program " + name + ": missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("load program " + name, e);
    }
  }
}
