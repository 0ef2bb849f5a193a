package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.probes.bcc.StderrCapture.Captured;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** libbcc as segscope uses it: the compiler. A real compile of real C, introspected, then destroyed. */
@Tag("lab")
class BpfModuleLabTest {
  private static final String TEXT = """
      BPF_HASH(counts, u32, u64, 128);
      BPF_PERCPU_ARRAY(slots, u64, 4);
      BPF_F_TABLE("hash", u32, u64, sparse, 64, BPF_F_NO_PREALLOC);
      int first(void *ctx) {
          u32 k = 1;
          counts.increment(k);
          return 0;
      }
      int second(void *ctx) {
          int i = 0;
          u64 *v = slots.lookup(&i);
          if (v)
              (*v)++;
          u32 k = 2;
          u64 one = 1;
          sparse.update(&k, &one);
          return 0;
      }
      """;

  @BeforeEach
  void requireLab() {
    Lab.requireBccLab();
  }

  @Test
  void aCompileListsItsFunctionsAndTablesWithTheirDefinitions() throws Exception {
    BpfModule m = BpfModule.compile("demo", TEXT, List.of());
    try (m) {
      assertThat(m.name()).isEqualTo("demo");
      assertThat(m.functionNames()).containsExactly("first", "second");
      assertThat(m.tableNames()).contains("counts", "slots", "sparse");
      BpfModule.Table counts = m.table("counts");
      assertThat(counts.type()).as("BPF_MAP_TYPE_HASH").isEqualTo(1);
      assertThat(counts.keySize()).isEqualTo(4);
      assertThat(counts.valueSize()).isEqualTo(8);
      assertThat(counts.maxEntries()).isEqualTo(128);
      assertThat(counts.flags()).isZero();
      assertThat(counts.fd()).isPositive();
      assertThat(m.table("slots").type()).as("BPF_MAP_TYPE_PERCPU_ARRAY").isEqualTo(6);
      assertThat(m.table("sparse").flags()).as("BPF_F_NO_PREALLOC").isEqualTo(1);
      byte[] code = m.functionCode("second");
      assertThat(code.length).isPositive().isEqualTo(code.length / 8 * 8);
      assertThat(m.license()).isEqualTo("GPL");
      assertThat(m.kernelVersion()).isPositive();
    }
    assertThatThrownBy(() -> m.table("counts")).isInstanceOf(BccException.class).hasMessageContaining("is closed");
    m.close(); // idempotent
  }

  @Test
  void unknownTablesAndFunctionsAreNamedWithWhatThereIs() throws Exception {
    try (BpfModule m = BpfModule.compile("demo", TEXT, List.of())) {
      assertThatThrownBy(() -> m.table("nope")).isInstanceOf(BccException.class)
          .hasMessageContaining("bpf_table_id nope: no such table in module demo").hasMessageContaining("counts");
      assertThatThrownBy(() -> m.functionCode("nope")).isInstanceOf(BccException.class)
          .hasMessageContaining("no such function in module demo (functions: first, second)");
    }
  }

  @Test
  void aFailedCompileCarriesClangsDiagnosticsOnceAndNothingReachesTheScreen() {
    Captured<BccException> outer = StderrCapture.around(() -> {
      try {
        BpfModule.compile("broken", "int f(void *ctx) { return undefined_thing; }", List.of()).close();
        return null;
      } catch (BccException e) {
        return e;
      }
    });
    BccException e = outer.value();
    assertThat(e).as("the compile failed").isNotNull();
    assertThat(e.call()).isEqualTo("bpf_module_create_c_from_string");
    assertThat(e.getMessage()).startsWith("bpf_module_create_c_from_string broken: compile failed")
        .contains("undeclared identifier 'undefined_thing'");
    assertThat(e.diagnostics()).contains("error:");
    assertThat(outer.stderr()).as("what reached fd 2 during the compile").isEmpty();
  }

  @Test
  void cflagsReachTheCompiler() throws Exception {
    String text = "int f(void *ctx) { return SEGSCOPE_VALUE; }";
    assertThatThrownBy(() -> BpfModule.compile("noflag", text, List.of()).close())
        .isInstanceOf(BccException.class).hasMessageContaining("SEGSCOPE_VALUE");
    try (BpfModule m = BpfModule.compile("flag", text, List.of("-DSEGSCOPE_VALUE=7"))) {
      assertThat(m.functionNames()).containsExactly("f");
    }
  }

  @Test
  void theLibraryVersionIsTheLoadedLibraryFile() throws Exception {
    Bcc.requireCompatible();
    assertThat(Bcc.libraryVersion()).startsWith(Bcc.SUPPORTED_SERIES + ".");
  }
}
