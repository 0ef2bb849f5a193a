package io.segscope.probes.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.host.sys.Cpus;
import io.segscope.host.sys.Libc;
import io.segscope.host.sys.SysException;
import io.segscope.probes.bcc.Bcc;
import io.segscope.probes.bcc.BccException;
import io.segscope.probes.btf.Btf;
import io.segscope.probes.compile.BccCompiler;
import io.segscope.probes.compile.CompiledObject;
import io.segscope.probes.compile.CompilerProcess;
import io.segscope.probes.sys.Bpf;
import io.segscope.testkit.Await;
import io.segscope.testkit.Requirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The kernel-facing path the agent runs, against the real kernel: libbcc compiles (in this process
 * and in a child JVM), segscope creates the maps, patches their fds into the bytecode, loads each
 * program through bpf(2), attaches it as tp_btf, raw tracepoint and classic tracepoint, reads the
 * maps with {@link MapReader}, and closing leaves nothing behind.
 */
@Tag("lab")
class LoadLabTest {
  private static final long TGID = ProcessHandle.current().pid();
  private static final String TEXT = """
      BPF_HASH(counts, u32, u64, 16);
      BPF_PERCPU_HASH(percpu, u32, u64, 16);
      static __always_inline void hit(u32 key) {
          if ((bpf_get_current_pid_tgid() >> 32) != TARGET_TGID)
              return;
          counts.increment(key);
          u64 zero = 0, *v = percpu.lookup_or_try_init(&key, &zero);
          if (v)
              (*v)++;
      }
      int tp_btf__sys_enter(u64 *ctx) { hit(1); return 0; }
      int raw_tp__sys_enter(struct bpf_raw_tracepoint_args *ctx) { hit(2); return 0; }
      int tp__sys_enter_getppid(void *ctx) { hit(3); return 0; }
      """;
  private static final List<String> CFLAGS = List.of("-DTARGET_TGID=" + TGID);
  private static Path tracefs;
  private static KernelAbi abi;

  @BeforeAll
  static void requireKernel() throws Exception {
    Requirement.require(isRoot(), "root (loading BPF programs)");
    String bcc = "";
    try {
      Bcc.requireCompatible();
    } catch (BccException e) {
      bcc = e.getMessage();
    }
    Requirement.require(bcc.isEmpty(), "libbcc 0.26: " + bcc);
    tracefs = List.of(Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing")).stream()
        .filter(p -> Files.isDirectory(p.resolve("events/syscalls/sys_enter_getppid"))).findFirst().orElse(null);
    Requirement.require(tracefs != null, "tracefs with syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS)");
    Requirement.require(Files.isExecutable(Path.of("/usr/sbin/bpftool")), "bpftool (apt-get install bpftool)");
    abi = KernelAbi.of(Btf.loadKernel());
  }

  @Test
  void programsLoadedAndAttachedThreeWaysCountThisProcessesSyscallsAndCloseLeavesNothing() throws Exception {
    CompiledObject compiled = BccCompiler.compile("loadlab", TEXT, CFLAGS);
    List<Integer> progIds = new ArrayList<>();
    List<Integer> mapIds = new ArrayList<>();
    List<Attachment> attached = new ArrayList<>();
    try (LoadedObject object = LoadedObject.create(compiled, abi)) {
      Map<String, AttachPoint> points = Map.of(
          "tp_btf__sys_enter", new AttachPoint.TpBtf("sys_enter"),
          "raw_tp__sys_enter", new AttachPoint.RawTp("sys_enter"),
          "tp__sys_enter_getppid", new AttachPoint.Tracepoint("syscalls", "sys_enter_getppid"));
      for (Map.Entry<String, AttachPoint> p : points.entrySet()) {
        int fd = object.program(p.getKey(), p.getValue());
        assertThat(object.program(p.getKey(), p.getValue())).as("loaded once").isEqualTo(fd);
        progIds.add(Bpf.progInfo(fd).id());
        attached.add(Programs.attach(p.getKey(), fd, p.getValue(), tracefs));
      }
      mapIds.add(Bpf.mapInfo(object.mapFd("counts")).id());
      mapIds.add(Bpf.mapInfo(object.mapFd("percpu")).id());
      assertThat(Bpf.mapInfo(object.mapFd("counts")).maxEntries()).isEqualTo(16);

      int calls = 500;
      for (int i = 0; i < calls; i++) {
        Libc.INSTANCE.getppid();
      }

      Map<Integer, Long> counts = read(object, "counts", 8);
      assertThat(counts).as("syscalls counted per attach type").containsOnlyKeys(1, 2, 3);
      // tp_btf and raw_tp fire on every syscall of this process, the classic one on getppid only
      assertThat(counts.get(3)).isGreaterThanOrEqualTo(calls);
      assertThat(counts.get(1)).isGreaterThanOrEqualTo(counts.get(3));
      assertThat(counts.get(2)).isGreaterThanOrEqualTo(counts.get(3));
      Map<Integer, Long> perCpu = read(object, "percpu", MapReader.perCpuBytes(8, Cpus.possible()));
      assertThat(perCpu.get(3)).as("per-CPU values summed over %d possible CPUs", Cpus.possible())
          .isGreaterThanOrEqualTo(calls);
      assertThat(object.mapMemory()).containsKeys("counts", "percpu")
          .allSatisfy((name, bytes) -> assertThat(bytes).as("memlock of %s", name).isPositive());

      for (Attachment a : attached) {
        assertThat(a.attached()).isTrue();
        assertThat(a.detach()).as("detach %s", a).isEmpty();
        assertThat(a.attached()).isFalse();
      }
      long before = read(object, "counts", 8).get(3);
      for (int i = 0; i < calls; i++) {
        Libc.INSTANCE.getppid();
      }
      assertThat(read(object, "counts", 8).get(3)).as("nothing counts once detached").isEqualTo(before);
    } finally {
      attached.forEach(Attachment::close);
    }
    for (int id : progIds) {
      assertThat(gone("prog", id)).as("program %d freed after close", id).isTrue();
    }
    for (int id : mapIds) {
      assertThat(gone("map", id)).as("map %d freed after close", id).isTrue();
    }
  }

  @Test
  void aRefusedProgramNamesItselfAndCarriesTheVerifiersReason() throws Exception {
    String bad = """
        BPF_ARRAY(arr, u64, 1);
        int raw_tp__bad(struct bpf_raw_tracepoint_args *ctx) {
            int i = 0;
            u64 *v = arr.lookup(&i);
            if (!v)
                return 0;
            return *(v + 4);
        }
        """;
    CompiledObject compiled = BccCompiler.compile("bad", bad, List.of());
    try (LoadedObject object = LoadedObject.create(compiled, abi)) {
      assertThatThrownBy(() -> object.program("raw_tp__bad", new AttachPoint.RawTp("sys_enter")))
          .isInstanceOf(SysException.class)
          .hasMessageStartingWith("bpf BPF_PROG_LOAD raw_tp__bad: ")
          .hasMessageContaining("verifier: ")
          .hasMessageContaining("invalid access to map value");
    }
  }

  @Test
  void theChildProcessCompilesExactlyWhatThisProcessCompiles() throws Exception {
    CompiledObject here = BccCompiler.compile("loadlab", TEXT, CFLAGS);
    CompiledObject child = CompilerProcess.ofThisJvm().compile("loadlab", TEXT, CFLAGS);
    assertThat(child.license()).isEqualTo(here.license());
    assertThat(child.kernelVersion()).isEqualTo(here.kernelVersion());
    assertThat(child.maps()).isEqualTo(here.maps());
    assertThat(child.programs()).hasSameSizeAs(here.programs());
    for (CompiledObject.Program p : here.programs()) {
      CompiledObject.Program c = child.program(p.name());
      assertThat(c.mapRefs()).as("map references of %s", p.name()).isEqualTo(p.mapRefs());
      assertThat(withoutMapFds(c)).as("instructions of %s (map fds aside)", p.name()).isEqualTo(withoutMapFds(p));
    }
  }

  @Test
  void aCompileErrorInTheChildComesBackWithClangsWords() {
    assertThatThrownBy(() -> CompilerProcess.ofThisJvm().compile("broken", "int f(void *ctx) { return nope; }",
        List.of()))
        .isInstanceOf(CompilerProcess.CompileException.class)
        .hasMessageContaining("broken")
        .satisfies(e -> assertThat(((CompilerProcess.CompileException) e).diagnostics())
            .contains("undeclared identifier 'nope'"));
  }

  /** The program's instructions with the map fd immediates (which differ per compile) zeroed. */
  private static byte[] withoutMapFds(CompiledObject.Program p) {
    byte[] code = p.code();
    for (CompiledObject.MapRef r : p.mapRefs()) {
      for (int b = 4; b < 8; b++) {
        code[r.instruction() * 8 + b] = 0;
      }
    }
    return code;
  }

  private static Map<Integer, Long> read(LoadedObject object, String map, int valueBytes) throws SysException {
    Map<Integer, Long> out = new HashMap<>();
    int cpus = valueBytes == 8 ? 1 : Cpus.possible();
    try (MapReader r = new MapReader(object.mapFd(map), map, 4, valueBytes)) {
      r.forEach((keys, ko, values, vo) -> {
        long sum = 0;
        for (int c = 0; c < cpus; c++) {
          sum += values.getLong(vo + 8 * c);
        }
        out.put(keys.getInt(ko), sum);
      });
    }
    return out;
  }

  /** Whether bpftool no longer finds the object (the kernel frees it shortly after its last close). */
  private static boolean gone(String kind, int id) throws Exception {
    return Await.atMost(Duration.ofSeconds(5)).every(Duration.ofMillis(100)).until(() -> {
      Process p = new ProcessBuilder("bpftool", kind, "show", "id", Integer.toString(id))
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() != 0;
    });
  }

  private static boolean isRoot() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
          .anyMatch(l -> l.split("\\s+")[2].equals("0"));
    } catch (IOException e) {
      return false;
    }
  }
}
