package io.segscope.agent.probing;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.probes.Compiler;
import io.segscope.probes.compile.CompiledObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compile cache on a temporary directory, with a compiler that counts its calls. */
class CompileCacheTest {
  private static final List<String> FLAGS = List.of("-DOFF_SKB_LEN=112", "-DMAX_DEVICES=4096");

  @TempDir
  Path tmp;
  private Path dir;
  private final List<String> compiled = new ArrayList<>();
  private final List<LogRecord> logged = new ArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord r) {
      synchronized (logged) {
        logged.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Compiler counting = (name, text, cflags) -> {
    compiled.add(text);
    return object(text);
  };

  @BeforeEach
  void setUp() {
    dir = tmp.resolve("cache");
    Logger.getLogger(CompileCache.class.getName()).addHandler(handler);
  }

  @AfterEach
  void tearDown() {
    Logger.getLogger(CompileCache.class.getName()).removeHandler(handler);
  }

  /** A compiled object whose bytes depend on the text: a cached answer can be told from a fresh one. */
  static CompiledObject object(String text) {
    byte[] code = new byte[16];
    byte[] t = text.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(t, 0, code, 0, Math.min(t.length, 16));
    return new CompiledObject("GPL", 0x060100, List.of(new CompiledObject.Program("tp_btf__consume_skb", code,
        List.of(new CompiledObject.MapRef(0, "dev_counts")))),
        List.of(new CompiledObject.MapDef("dev_counts", 5, 16, 88, 4096, 1)));
  }

  private CompileCache cache(String salt) {
    return new CompileCache(dir, salt, counting);
  }

  private List<String> warnings() {
    synchronized (logged) {
      return logged.stream().filter(r -> r.getLevel() == Level.WARNING).map(LogRecord::getMessage).toList();
    }
  }

  private List<Path> entries() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(CompileCache.SUFFIX)).toList();
    }
  }

  @Test
  void aSecondStartWithTheSameRequestDoesNotCompile() throws Exception {
    CompiledObject first = cache("salt").compile("segscope", "int x;", FLAGS);
    CompiledObject second = cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(compiled).containsExactly("int x;");
    assertThat(second.program("tp_btf__consume_skb").code()).isEqualTo(first.program("tp_btf__consume_skb").code());
    assertThat(second.maps()).isEqualTo(first.maps());
    assertThat(second.license()).isEqualTo("GPL");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    assertThat(entries()).singleElement().satisfies(
        e -> assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(e))).isEqualTo("rw-------"));
    assertThat(warnings()).isEmpty();
  }

  @Test
  void anythingThatDecidesTheOutputIsAnotherEntry() throws Exception {
    cache("salt").compile("segscope", "int x;", FLAGS);
    cache("salt").compile("segscope", "int y;", FLAGS);                              // text (call sites)
    cache("salt").compile("segscope", "int x;", List.of("-DOFF_SKB_LEN=120"));        // flags (offsets)
    cache("libbcc=0.26.1").compile("segscope", "int x;", FLAGS);                     // libbcc, agent, kernel
    cache("salt").compile("other", "int x;", FLAGS);                                 // name
    // no two fields can be shifted into each other: ("ab", "c") is not ("a", "bc")
    cache("salt").compile("segscope", "int x;", List.of("-Da", "b"));
    cache("salt").compile("segscope", "int x;", List.of("-Dab"));
    assertThat(compiled).hasSize(7);
    assertThat(entries()).hasSize(7);
  }

  @Test
  void macroDefinitionsInAnotherOrderAreTheSameRequest() throws Exception {
    // the kernel layout's -D flags come from a Map.copyOf, whose order differs in every JVM
    cache("salt").compile("segscope", "int x;", List.of("-DOFF_A=1", "-DOFF_B=2", "-DMAX_DEVICES=4096"));
    cache("salt").compile("segscope", "int x;", List.of("-DMAX_DEVICES=4096", "-DOFF_B=2", "-DOFF_A=1"));
    assertThat(compiled).hasSize(1);
    // but a macro defined twice, or any other flag, keeps its order: there it can matter
    cache("salt").compile("segscope", "int x;", List.of("-DA=1", "-DA=2"));
    cache("salt").compile("segscope", "int x;", List.of("-DA=2", "-DA=1"));
    cache("salt").compile("segscope", "int x;", List.of("-DA=1", "-UA"));
    cache("salt").compile("segscope", "int x;", List.of("-UA", "-DA=1"));
    assertThat(compiled).hasSize(5);
  }

  @Test
  void aCorruptEntryIsCompiledAgainWithOneWarningAndReplaced() throws Exception {
    cache("salt").compile("segscope", "int x;", FLAGS);
    Path entry = entries().get(0);
    byte[] b = Files.readAllBytes(entry);
    b[b.length / 2] ^= 0x40;
    Files.write(entry, b);
    CompiledObject again = cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(compiled).hasSize(2);
    assertThat(again.program("tp_btf__consume_skb").code())
        .isEqualTo(object("int x;").program("tp_btf__consume_skb").code());
    assertThat(warnings()).singleElement().asString().contains("unusable").contains("checksum mismatch")
        .contains("compiling again");
    cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(compiled).as("the replacement serves the next start").hasSize(2);
  }

  @Test
  void aTruncatedOrForeignEntryIsNotLoaded() throws Exception {
    cache("salt").compile("segscope", "int x;", FLAGS);
    Path entry = entries().get(0);
    Files.write(entry, Arrays.copyOf(Files.readAllBytes(entry), 40));
    cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(warnings()).last().asString().contains("truncated");
    // an intact entry of another request, renamed to this request's key
    cache("salt").compile("segscope", "int y;", FLAGS);
    Path y = entries().stream().filter(p -> !p.equals(entry)).findFirst().orElseThrow();
    Files.copy(y, entry, StandardCopyOption.REPLACE_EXISTING);
    CompiledObject x = cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(warnings()).last().asString().contains("key mismatch");
    assertThat(x.program("tp_btf__consume_skb").code())
        .isEqualTo(object("int x;").program("tp_btf__consume_skb").code());
    assertThat(compiled).containsExactly("int x;", "int x;", "int y;", "int x;");
  }

  @Test
  void aDirectoryOthersCanWriteIsNotUsed() throws Exception {
    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    cache("salt").compile("segscope", "int x;", FLAGS);
    cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(compiled).hasSize(2);
    assertThat(entries()).as("nothing stored where others could swap it").isEmpty();
    assertThat(warnings()).isNotEmpty().allSatisfy(w -> assertThat(w).contains("writable by group or others"));
  }

  @Test
  void anEntryOthersCanWriteIsNotLoaded() throws Exception {
    cache("salt").compile("segscope", "int x;", FLAGS);
    Files.setPosixFilePermissions(entries().get(0), PosixFilePermissions.fromString("rw-rw-rw-"));
    cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(compiled).hasSize(2);
    assertThat(warnings()).singleElement().asString().contains("writable by group or others");
  }

  @Test
  void aSymbolicLinkIsNotFollowed() throws Exception {
    Path real = tmp.resolve("elsewhere");
    Files.createDirectory(real, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.createSymbolicLink(dir, real);
    cache("salt").compile("segscope", "int x;", FLAGS);
    assertThat(warnings()).isNotEmpty().allSatisfy(w -> assertThat(w).contains("symbolic link"));
    try (Stream<Path> s = Files.list(real)) {
      assertThat(s).isEmpty();
    }
  }

  @Test
  void anUnwritableLocationCompilesWithOneWarning() throws Exception {
    Path ro = tmp.resolve("ro");
    Files.writeString(ro, "a file, so nothing can be created under it");
    CompileCache c = new CompileCache(ro.resolve("cache"), "salt", counting);
    c.compile("segscope", "int x;", FLAGS);
    c.compile("segscope", "int y;", FLAGS);
    assertThat(compiled).hasSize(2);
    assertThat(warnings()).singleElement().asString().startsWith("store the compiled programs in the compile cache");
  }

  @Test
  void onlyTheMostRecentlyUsedEntriesAreKept() throws Exception {
    for (int i = 0; i < CompileCache.KEEP + 3; i++) {
      cache("salt").compile("segscope", "int v" + i + ";", FLAGS);
      for (Path e : entries()) {
        Files.setLastModifiedTime(e, FileTime.fromMillis(
            Files.getLastModifiedTime(e).toMillis() - 1000)); // older than the next one
      }
    }
    assertThat(entries()).hasSize(CompileCache.KEEP);
    compiled.clear();
    cache("salt").compile("segscope", "int v" + (CompileCache.KEEP + 2) + ";", FLAGS);
    cache("salt").compile("segscope", "int v0;", FLAGS);
    assertThat(compiled).as("the newest stayed, the oldest went").containsExactly("int v0;");
  }

  @Test
  void theSaltNamesLibbccTheAgentAndTheKernel() {
    String salt = CompileCache.salt("0.26.0", "1.2.3");
    assertThat(salt).contains("libbcc=0.26.0\n").contains("agent=1.2.3\n")
        .contains("kernel=" + System.getProperty("os.version") + "\n").contains("jar=").contains("headers=");
  }
}
