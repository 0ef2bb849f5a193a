package io.segscope.probes.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.ksym.Kallsyms;
import io.segscope.vocabulary.Site;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kprobe and fentry mode's call-site rule ({@code return_address_site} in gso.c, the very text the BPF
 * program has) with
 * the generated {@code site_of} and {@code in_core_text} of the Debian 6.1 guest kernel, compiled with clang
 * for this host and called with the stack words measured at {@code kprobe:__skb_gso_segment} in that guest
 * (bpftrace over a WireGuard pair: the word at sp was {@code wg_xmit+0x1e7 [wireguard]}, the one above it a
 * heap pointer).
 */
class CallerSiteCompiledTest {
  // recorded in the 6.1.0-50 guest: each function and the symbol after it; wireguard.ko loaded (its first
  // device was created) only after the programs were compiled, so it is not in the kallsyms they saw
  static final List<String> GUEST_6_1_AT_START = List.of(
      "ffffffff81000000 T _stext",
      "ffffffff817cf980 T __skb_gso_segment",
      "ffffffff817cfaf0 T dev_close_many",
      "ffffffff817d5cb0 t validate_xmit_skb",
      "ffffffff817d5fd0 T validate_xmit_skb_list",
      "ffffffff817d6040 T __dev_direct_xmit",
      "ffffffff817d64e0 T __dev_queue_xmit",
      "ffffffff817d72b0 T bpf_prog_run_generic_xdp",
      "ffffffff81e01d32 T _etext");
  static final List<String> WIREGUARD = List.of(
      "ffffffffc039bbe0 t wg_xmit\t[wireguard]",
      "ffffffffc039c080 t wg_newlink\t[wireguard]");
  static final long WG_XMIT_RETURN = 0xffffffffc039bdc7L;
  static final long HEAP = 0xffff888006701000L;
  static final long IN_GSO_SEGMENT = 0xffffffff817cf985L;
  static final long IN_VALIDATE_XMIT_SKB = 0xffffffff817d5e00L;
  static final long IN_DEV_QUEUE_XMIT = 0xffffffff817d6600L;
  static final int QUEUED = 16;

  @Test
  void aModuleReturnAddressNoRangeHoldsIsOtherAfterTheQueueItWasQueuedOn(@TempDir Path dir) throws Exception {
    Path bin = compile(dir, CallSites.resolve(Kallsyms.parse(GUEST_6_1_AT_START, "recorded")));
    assertThat(call(bin, WG_XMIT_RETURN, HEAP, 0, QUEUED)).as("wg_xmit loaded after the start, queued on wg0")
        .isEqualTo(Site.OTHER.code() | QUEUED);
    assertThat(call(bin, WG_XMIT_RETURN, HEAP, 0, 0)).as("the same, not queued").isEqualTo(Site.OTHER.code());
    assertThat(call(bin, WG_XMIT_RETURN, IN_VALIDATE_XMIT_SKB, 0, QUEUED))
        .as("a module caller's own stack is never read as the caller").isEqualTo(Site.OTHER.code() | QUEUED);
  }

  @Test
  void coreCallersResolveAsBefore(@TempDir Path dir) throws Exception {
    Path bin = compile(dir, CallSites.resolve(Kallsyms.parse(GUEST_6_1_AT_START, "recorded")));
    assertThat(call(bin, IN_VALIDATE_XMIT_SKB, HEAP, 0, QUEUED)).isEqualTo(Site.XMIT.code() | QUEUED);
    assertThat(call(bin, IN_GSO_SEGMENT, IN_DEV_QUEUE_XMIT, 0, QUEUED))
        .as("the return into __skb_gso_segment itself at sp: the caller is the word above")
        .isEqualTo(Site.XMIT.code() | QUEUED);
    assertThat(call(bin, IN_GSO_SEGMENT, HEAP, 0, QUEUED)).as("core text, nothing resolves: fentry's rule")
        .isEqualTo(Site.XMIT.code() | QUEUED);
    assertThat(call(bin, IN_GSO_SEGMENT, HEAP, 0, 0)).isEqualTo(Site.OTHER.code());
    assertThat(call(bin, 0, 0, -14, QUEUED)).as("an unreadable stack: fentry's rule")
        .isEqualTo(Site.XMIT.code() | QUEUED);
  }

  @Test
  void wgXmitLoadedBeforeTheStartResolvesFromItsRange(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>(GUEST_6_1_AT_START);
    lines.addAll(WIREGUARD);
    CallSites sites = CallSites.resolve(Kallsyms.parse(lines, "recorded"));
    assertThat(sites.resolutions()).filteredOn(r -> r.callSite().name().equals("wg_xmit"))
        .singleElement().satisfies(r -> assertThat(r.module()).isEqualTo("wireguard"));
    Path bin = compile(dir, sites);
    assertThat(call(bin, WG_XMIT_RETURN, HEAP, 0, 0)).as("wg_xmit's own range says after the queue")
        .isEqualTo(Site.OTHER.code() | QUEUED);
  }

  @Test
  void withoutTextBoundsEveryAddressIsCoreText(@TempDir Path dir) throws Exception {
    CallSites sites = CallSites.resolve(Kallsyms.parse(GUEST_6_1_AT_START.subList(1, GUEST_6_1_AT_START.size() - 1),
        "recorded"));
    assertThat(sites.coreText()).isEmpty();
    assertThat(call(compile(dir, sites), WG_XMIT_RETURN, HEAP, 0, QUEUED)).as("the queue rule, as before")
        .isEqualTo(Site.XMIT.code() | QUEUED);
  }

  /**
   * fentry mode's caller from the unwound stack ({@code fentry_caller}), with the stack measured in the 6.1 guest
   * (bpftrace kfunc:__skb_gso_segment kstack over a veth with TSO off): the program's JIT frame, the
   * trampoline's, {@code __skb_gso_segment+5}, {@code validate_xmit_skb+345}, {@code __dev_queue_xmit+515}.
   */
  @Test
  void fentryTakesTheFirstFrameAfterTheOnesInsideTheSegmentingFunction(@TempDir Path dir) throws Exception {
    Path bin = compileFentry(dir, CallSites.resolve(Kallsyms.parse(GUEST_6_1_AT_START, "recorded")));
    long prog = 0xffffffffc0203a1fL;
    long trampoline = 0xffffffffc0201093L;
    long gso5 = 0xffffffff817cf985L;
    long validate = 0xffffffff817d5e09L;
    long queue = 0xffffffff817d66e3L;
    List<Long> measured = List.of(prog, trampoline, gso5, validate, queue, 0xffffffff81861c37L);
    assertThat(fentryCaller(bin, measured, 48)).as("the caller of __skb_gso_segment").isEqualTo(validate);
    assertThat(fentryCaller(bin, measured, 24)).as("the stack ends before the caller").isZero();
    assertThat(fentryCaller(bin, measured, -14)).as("bpf_get_stack failed").isZero();
    assertThat(fentryCaller(bin, List.of(prog, trampoline, validate, queue, 0L, 0L), 32))
        .as("no frame inside __skb_gso_segment: the JIT frames are never taken for the caller").isZero();
    assertThat(fentryCaller(bin, List.of(prog, trampoline, gso5, WG_XMIT_RETURN, 0L, 0L), 32))
        .as("a module caller").isEqualTo(WG_XMIT_RETURN);
  }

  /** The SITE_ macros of common.h, as the programs are compiled with them. */
  private static String siteDefines() {
    StringBuilder defines = new StringBuilder();
    for (Site s : Site.values()) {
      defines.append("#define SITE_").append(s.name()).append(' ').append(s.code()).append('\n');
    }
    return defines.append("#define SITES ").append(Site.values().length).append('\n').toString();
  }

  private static Path compileFentry(Path dir, CallSites sites) throws Exception {
    String gso = ProgramText.resource("bpf/gso.c");
    int define = gso.indexOf("#define GSO_FENTRY_FRAMES ");
    assertThat(define).as("GSO_FENTRY_FRAMES in gso.c").isNotNegative();
    int start = gso.indexOf("static __always_inline u64 fentry_caller(");
    assertThat(start).as("fentry_caller in gso.c").isNotNegative();
    String function = gso.substring(define, gso.indexOf('\n', define) + 1)
        + gso.substring(start, gso.indexOf("\n}\n", start) + 3);
    return HostC.compile(dir, "fentry_caller", String.join("\n",
        siteDefines(),
        sites.siteFunction(),
        function,
        "int main(int argc, char **argv)",
        "{",
        "    u64 frames[GSO_FENTRY_FRAMES] = {0};",
        "    if (argc != 2 + GSO_FENTRY_FRAMES)",
        "        return 2;",
        "    for (int i = 0; i < GSO_FENTRY_FRAMES; i++)",
        "        frames[i] = strtoull(argv[2 + i], 0, 16);",
        "    printf(\"%llx\\n\", fentry_caller(frames, atol(argv[1])));",
        "    return 0;",
        "}",
        ""), "compiling fentry mode's caller rule for the host", "-Wno-unused-function");
  }

  private static long fentryCaller(Path bin, List<Long> frames, long got) throws Exception {
    List<String> argv = new ArrayList<>(List.of(bin.toString(), Long.toString(got)));
    frames.forEach(f -> argv.add(Long.toHexString(f)));
    return Long.parseUnsignedLong(HostC.run(argv, "").strip(), 16);
  }

  /** gso.c's return_address_site, cut out of the resource by its braces. */
  static String callerSiteFunction() {
    String gso = ProgramText.resource("bpf/gso.c");
    int start = gso.indexOf("static __always_inline u32 return_address_site(");
    assertThat(start).as("return_address_site in gso.c").isNotNegative();
    int end = gso.indexOf("\n}\n", start);
    return gso.substring(start, end + 3);
  }

  private static Path compile(Path dir, CallSites sites) throws Exception {
    // the generated text also holds in_gso_segment, which only the kprobe body calls
    return HostC.compile(dir, "caller_site", String.join("\n",
        siteDefines(),
        sites.siteFunction(),
        callerSiteFunction(),
        "int main(int argc, char **argv)",
        "{",
        "    if (argc != 5)",
        "        return 2;",
        "    printf(\"%u\\n\", return_address_site(strtoull(argv[1], 0, 16), strtoull(argv[2], 0, 16),",
        "                                       atoi(argv[3]), (u32)atoi(argv[4])));",
        "    return 0;",
        "}",
        ""), "compiling kprobe mode's call-site rule for the host", "-Wno-unused-function");
  }

  private static int call(Path bin, long w0, long w1, int unread, int queued) throws Exception {
    return Integer.parseInt(HostC.run(List.of(bin.toString(), Long.toHexString(w0), Long.toHexString(w1),
        Integer.toString(unread), Integer.toString(queued)), "").strip());
  }
}
