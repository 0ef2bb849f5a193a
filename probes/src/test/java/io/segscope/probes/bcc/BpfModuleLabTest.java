package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The binding against the real kernel: tracepoint programs counting this process's own getppid()
 * and write() calls, so every expected number is known exactly.
 */
@Tag("lab")
class BpfModuleLabTest {
  private static final String GETPPID = "tracepoint__syscalls__sys_enter_getppid";
  private static final String WRITE = "tracepoint__syscalls__sys_enter_write";
  private static final String COUNTERS = """
      BPF_HASH(calls, u32, u64);
      BPF_PERCPU_HASH(calls_percpu, u32, u64);
      BPF_PERCPU_ARRAY(calls_array, u64, 1);
      BPF_HISTOGRAM(write_sizes, int);
      BPF_STACK_TRACE(stacks, 16);

      TRACEPOINT_PROBE(syscalls, sys_enter_getppid) {
        u32 tgid = bpf_get_current_pid_tgid() >> 32;
        if (tgid != TGID)
          return 0;
        calls.increment(tgid);
        // BCC's increment() inserts missing keys only into a plain BPF_HASH
        u64 zero64 = 0;
        u64 *mine = calls_percpu.lookup_or_try_init(&tgid, &zero64);
        if (mine)
          (*mine)++;
        int zero = 0;
        calls_array.increment(zero);
        stacks.get_stackid(args, 0);
        return 0;
      }

      TRACEPOINT_PROBE(syscalls, sys_enter_write) {
        if ((bpf_get_current_pid_tgid() >> 32) != TGID || args->fd != TARGET_FD)
          return 0;
        write_sizes.increment(bpf_log2l(args->count));
        return 0;
      }
      """;

  private final List<BpfModule> modules = new ArrayList<>();
  private final int pid = (int) ProcessHandle.current().pid();
  private int devNull = -1;

  @BeforeEach
  void requireLab() {
    Lab.requireBccLab();
    devNull = TestLibc.INSTANCE.open("/dev/null", TestLibc.O_WRONLY);
    assertThat(devNull).as("open /dev/null").isGreaterThanOrEqualTo(0);
  }

  @AfterEach
  void cleanUp() {
    modules.forEach(BpfModule::close);
    if (devNull >= 0) {
      TestLibc.INSTANCE.close(devNull);
    }
  }

  private BpfModule counters() throws BccException {
    BpfModule module = BpfModule.compile("counters", COUNTERS,
        List.of("-DTGID=" + pid, "-DTARGET_FD=" + devNull));
    modules.add(module);
    return module;
  }

  private BpfModule compile(String name, String text) throws BccException {
    BpfModule module = BpfModule.compile(name, text, List.of());
    modules.add(module);
    return module;
  }

  @Test
  void countsEventsInHashPerCpuHashPerCpuArrayAndHistogram() throws Exception {
    BpfModule module = counters();
    module.attachTracepoint(GETPPID, "syscalls", "sys_enter_getppid");
    module.attachTracepoint(WRITE, "syscalls", "sys_enter_write");
    assertThat(module.attachments())
        .containsExactly("tracepoint:syscalls:sys_enter_getppid", "tracepoint:syscalls:sys_enter_write");

    for (int i = 0; i < 50; i++) {
      TestLibc.INSTANCE.getppid();
    }
    writeToDevNull(100, 5);
    writeToDevNull(1000, 3);

    byte[] ownKey = u32(pid);
    BpfTable calls = module.table("calls");
    assertThat(calls.type()).isEqualTo(BpfTable.HASH);
    assertThat(calls.isPerCpu()).isFalse();
    assertThat(calls.keySize()).isEqualTo(4);
    assertThat(calls.valueSize()).isEqualTo(8);
    assertThat(calls.valueBytes()).isEqualTo(8);
    assertThat(calls.entries()).singleElement().satisfies(entry -> {
      assertThat(entry.key()).isEqualTo(ownKey);
      assertThat(u64(entry.value(), 0)).isEqualTo(50);
    });
    assertThat(calls.lookup(ownKey)).hasValueSatisfying(value -> assertThat(u64(value, 0)).isEqualTo(50));

    BpfTable perCpu = module.table("calls_percpu");
    assertThat(perCpu.type()).isEqualTo(BpfTable.PERCPU_HASH);
    assertThat(perCpu.isPerCpu()).isTrue();
    assertThat(perCpu.valueStride()).isEqualTo(8);
    assertThat(perCpu.valueBytes()).isEqualTo(Bcc.possibleCpus() * 8);
    List<BpfTable.Entry> perCpuEntries = perCpu.entries();
    assertThat(perCpuEntries).singleElement().satisfies(entry -> {
      assertThat(entry.key()).isEqualTo(ownKey);
      assertThat(entry.value()).hasSize(Bcc.possibleCpus() * 8);
      assertThat(sumPerCpu(entry.value(), 8)).isEqualTo(50);
    });
    assertThat(BpfTable.batchSupport(BpfTable.PERCPU_HASH)).as("batch lookup on 6.x").contains(true);
    assertThat(perCpu.entriesByKeyWalk()).singleElement()
        .satisfies(entry -> assertThat(entry.value()).isEqualTo(perCpuEntries.get(0).value()));

    BpfTable array = module.table("calls_array");
    assertThat(array.type()).isEqualTo(BpfTable.PERCPU_ARRAY);
    assertThat(array.maxEntries()).isEqualTo(1);
    assertThat(array.entries()).singleElement().satisfies(entry -> {
      assertThat(entry.key()).isEqualTo(u32(0));
      assertThat(sumPerCpu(entry.value(), 8)).isEqualTo(50);
    });

    BpfTable histogram = module.table("write_sizes");
    assertThat(histogram.type()).isEqualTo(BpfTable.ARRAY);
    List<BpfTable.Entry> slots = histogram.entries();
    assertThat(slots).hasSize((int) histogram.maxEntries());
    Map<Integer, Long> nonZero = new TreeMap<>();
    for (BpfTable.Entry slot : slots) {
      long count = u64(slot.value(), 0);
      if (count != 0) {
        nonZero.put(ByteBuffer.wrap(slot.key()).order(ByteOrder.nativeOrder()).getInt(), count);
      }
    }
    // bpf_log2l: slot i holds [2^(i-1), 2^i - 1]; 100 → slot 7 (64..127), 1000 → slot 10 (512..1023)
    assertThat(nonZero).containsExactly(Map.entry(7, 5L), Map.entry(10, 3L));
    assertThat(histogram.entriesByKeyWalk()).hasSameSizeAs(slots);

    // The kernel has no batch lookup for stack maps (ENOTSUPP): entries() walks the keys instead.
    BpfTable stacks = module.table("stacks");
    assertThat(stacks.type()).isEqualTo(BpfTable.STACK_TRACE);
    assertThat(stacks.entries()).isNotEmpty().allSatisfy(entry -> {
      assertThat(entry.key()).hasSize(4);
      assertThat(entry.value()).hasSize(stacks.valueSize());
      assertThat(u64(entry.value(), 0)).as("innermost kernel return address").isNegative();
    });
    assertThat(BpfTable.batchSupport(BpfTable.STACK_TRACE)).contains(false);
  }

  @Test
  void updatesLooksUpAndDeletesEntries() throws Exception {
    BpfModule module = counters();
    BpfTable calls = module.table("calls");
    byte[] key = u32(4242);
    assertThat(calls.lookup(key)).isEmpty();
    calls.update(key, u64Bytes(7));
    assertThat(calls.lookup(key)).hasValueSatisfying(value -> assertThat(u64(value, 0)).isEqualTo(7));
    assertThat(calls.entries()).hasSize(1);
    assertThat(calls.delete(key)).isTrue();
    assertThat(calls.delete(key)).isFalse();
    assertThat(calls.lookup(key)).isEmpty();

    BpfTable perCpu = module.table("calls_percpu");
    byte[] perCpuValue = new byte[perCpu.valueBytes()];
    perCpuValue[0] = 3;
    perCpu.update(key, perCpuValue);
    assertThat(perCpu.lookup(key)).hasValueSatisfying(value -> assertThat(sumPerCpu(value, 8)).isEqualTo(3));

    assertThatThrownBy(() -> calls.update(key, new byte[3])).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("update calls: value has 3 bytes, table needs 8");
    assertThatThrownBy(() -> calls.lookup(new byte[2])).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lookup calls: key has 2 bytes, table key size is 4");
    BccException arrayDelete = catchThrowableOfType(BccException.class,
        () -> module.table("write_sizes").delete(u32(1)));
    assertThat(arrayDelete.call()).isEqualTo("bpf_delete_elem");
    assertThat(arrayDelete.errno()).isEqualTo(Errno.EINVAL);
  }

  @Test
  void unknownTableIsNamed() throws Exception {
    BpfModule module = counters();
    assertThat(module.tableNames()).containsExactlyInAnyOrder("calls", "calls_percpu", "calls_array",
        "write_sizes", "stacks");
    BccException e = catchThrowableOfType(BccException.class, () -> module.table("no_such_map"));
    assertThat(e.object()).isEqualTo("no_such_map");
    assertThat(e).hasMessageContaining("no such table in module counters").hasMessageContaining("calls");
  }

  @Test
  void programStatsCountRunsWhileBpfStatsAreEnabled() throws Exception {
    String sysctl = "/proc/sys/kernel/bpf_stats_enabled";
    Lab.require(Files.isWritable(Path.of(sysctl)), sysctl + " not writable");
    BpfModule module = counters();
    module.attachTracepoint(GETPPID, "syscalls", "sys_enter_getppid");
    int fd = module.load(GETPPID, ProgramType.TRACEPOINT);
    String before = LabKernel.readSysctl(sysctl);
    try {
      LabKernel.writeSysctl(sysctl, "1");
      for (int i = 0; i < 20; i++) {
        TestLibc.INSTANCE.getppid();
      }
      assertThat(module.programStats()).singleElement().satisfies(stats -> {
        assertThat(stats.function()).isEqualTo(GETPPID);
        assertThat(stats.fd()).isEqualTo(fd);
        assertThat(stats.runCount()).isGreaterThanOrEqualTo(20);
        assertThat(stats.runTimeNanos()).isPositive();
      });
    } finally {
      LabKernel.writeSysctl(sysctl, before);
    }
    assertThat(LabKernel.readSysctl(sysctl)).isEqualTo(before);
  }

  @Test
  void loadIsCachedPerFunctionAndTypeMismatchIsRefused() throws Exception {
    BpfModule module = counters();
    int fd = module.load(GETPPID, ProgramType.TRACEPOINT);
    assertThat(module.load(GETPPID, ProgramType.TRACEPOINT)).isEqualTo(fd);
    assertThatThrownBy(() -> module.load(GETPPID, ProgramType.KPROBE)).isInstanceOf(BccException.class)
        .hasMessage("bcc_func_load " + GETPPID + ": already loaded as TRACEPOINT, asked for KPROBE");
    BccException missing = catchThrowableOfType(BccException.class,
        () -> module.load("no_such_function", ProgramType.TRACEPOINT));
    assertThat(missing.call()).isEqualTo("bpf_function_start");
    assertThat(missing).hasMessageContaining(GETPPID);
  }

  @Test
  void compileErrorCarriesClangDiagnostics() {
    BccException e = catchThrowableOfType(BccException.class,
        () -> compile("broken", "int broken(void *ctx) { return undefined_thing; }"));
    assertThat(e.call()).isEqualTo("bpf_module_create_c_from_string");
    assertThat(e.object()).isEqualTo("broken");
    assertThat(e.errno()).isZero();
    assertThat(e).hasMessageStartingWith("bpf_module_create_c_from_string broken: compile failed");
    assertThat(e.diagnostics()).contains("error").contains("undefined_thing");
  }

  @Test
  void failuresCarryWhatLibbccAndClangPrintedOnceAndNothingReachesTheScreen() throws Exception {
    // the outer capture records what reaches fd 2 (the screen) during the calls
    StderrCapture.Captured<BccException> compile = StderrCapture.around(() -> catchThrowableOfType(
        BccException.class, () -> compile("broken2", "int broken2(void *ctx) { return undefined_other; }")));
    assertThat(compile.stderr()).as("clang's words on fd 2").isEmpty();
    assertThat(compile.value().getMessage()).as("the failure, with clang's words as context")
        .startsWith("bpf_module_create_c_from_string broken2: compile failed\n").contains("undefined_other");

    BpfModule module = compile("kfunc-refusal", "KFUNC_PROBE(vfs_write) { return 0; }");
    StderrCapture.Captured<BccException> attach = StderrCapture.around(() -> catchThrowableOfType(
        BccException.class, () -> module.attachKfunc("kfunc__vfs_write")));
    assertThat(attach.stderr()).as("libbcc's words on fd 2").isEmpty();
    if (attach.value() != null) {
      // this development kernel refuses fentry: libbcc said so in its own words, now in the exception
      assertThat(attach.value().getMessage()).startsWith(attach.value().call() + " kfunc__vfs_write: ");
      assertThat(attach.value().getMessage().split("Failed to load program", -1))
          .as("libbcc's line at most once in %s", attach.value().getMessage()).hasSizeLessThanOrEqualTo(2);
    }
  }

  @Test
  void verifierRejectionCarriesTheVerifierLogAndLeavesTheModuleUsable() throws Exception {
    BpfModule module = compile("verifier", """
        BPF_ARRAY(slots, u64, 1);
        int reads_out_of_bounds(void *ctx) {
          int key = 0;
          u64 *value = slots.lookup(&key);
          return value ? value[4] : 0;
        }
        int reads_with_null_check(void *ctx) {
          int key = 0;
          u64 *value = slots.lookup(&key);
          return value ? *value : 0;
        }
        """);
    BccException e = catchThrowableOfType(BccException.class,
        () -> module.load("reads_out_of_bounds", ProgramType.TRACEPOINT));
    assertThat(e.call()).isEqualTo("bcc_func_load");
    assertThat(e.object()).isEqualTo("reads_out_of_bounds");
    assertThat(e.errno()).isEqualTo(Errno.EACCES);
    assertThat(e.verifierLog()).isNotBlank().contains("invalid access to map value");
    assertThat(e).hasMessageStartingWith("bcc_func_load reads_out_of_bounds: Permission denied (errno 13)")
        .hasMessageContaining("program type TRACEPOINT; verifier: ")
        .hasMessageContaining("invalid access to map value");
    assertThat(e.diagnostics()).doesNotContain("invalid access to map value");
    assertThat(module.load("reads_with_null_check", ProgramType.TRACEPOINT)).isGreaterThanOrEqualTo(0);
  }

  @Test
  void kprobeAttachFailsCleanlyWhereKprobesAreMissingAndCloseReleasesAll() throws Exception {
    Lab.require(LabKernel.hasBpftool(), "bpftool missing");
    boolean kprobes = Files.exists(Path.of("/sys/bus/event_source/devices/kprobe"))
        || Files.exists(Path.of("/sys/kernel/tracing/kprobe_events"));
    long perfEventsBefore = LabKernel.openAnonInodes("[perf_event]");
    BpfModule module = compile("kprobe", """
        TRACEPOINT_PROBE(syscalls, sys_enter_getppid) { return 0; }
        int kprobe__vfs_read(struct pt_regs *ctx) { return 0; }
        int kretprobe__vfs_read(struct pt_regs *ctx) { return 0; }
        """);
    module.attachTracepoint(GETPPID, "syscalls", "sys_enter_getppid");
    if (kprobes) {
      module.attachKprobe("kprobe__vfs_read", "vfs_read");
      module.attachKretprobe("kretprobe__vfs_read", "vfs_read");
      assertThat(module.attachments()).containsExactly("tracepoint:syscalls:sys_enter_getppid",
          "kprobe:vfs_read", "kretprobe:vfs_read");
    } else {
      BccException entry = catchThrowableOfType(BccException.class,
          () -> module.attachKprobe("kprobe__vfs_read", "vfs_read"));
      assertThat(entry.call()).isEqualTo("bpf_attach_kprobe");
      assertThat(entry.object()).isEqualTo("vfs_read");
      assertThat(entry.errno()).isPositive();
      assertThat(entry).hasMessageStartingWith("bpf_attach_kprobe vfs_read: ")
          .hasMessageContaining("(errno " + entry.errno() + ")")
          .hasMessageContaining("program kprobe__vfs_read");
      BccException exit = catchThrowableOfType(BccException.class,
          () -> module.attachKretprobe("kretprobe__vfs_read", "vfs_read"));
      assertThat(exit.call()).isEqualTo("bpf_attach_kprobe");
      assertThat(module.attachments()).containsExactly("tracepoint:syscalls:sys_enter_getppid");
    }
    List<Long> programIds = new ArrayList<>();
    for (String function : List.of(GETPPID, "kprobe__vfs_read", "kretprobe__vfs_read")) {
      programIds.add(LabKernel.fdinfo(module.load(function,
          function.startsWith("tracepoint") ? ProgramType.TRACEPOINT : ProgramType.KPROBE), "prog_id"));
    }
    assertThat(programIds).hasSize(3).allSatisfy(id -> assertThat(LabKernel.exists("prog", id)).isTrue());
    module.close();
    assertThat(programIds).allSatisfy(id -> assertThat(LabKernel.gone("prog", id)).isTrue());
    assertThat(LabKernel.openAnonInodes("[perf_event]")).as("perf event fds left open")
        .isEqualTo(perfEventsBefore);
  }

  @Test
  void kfuncAttachSucceedsOrFailsCleanly() throws Exception {
    BpfModule module = compile("kfunc", "KFUNC_PROBE(vfs_read) { return 0; }");
    assertThat(module.functionNames()).contains("kfunc__vfs_read");
    try {
      module.attachKfunc("kfunc__vfs_read");
      assertThat(module.attachments()).containsExactly("kfunc:vfs_read");
    } catch (BccException e) {
      // This development kernel refuses fentry programs at load (EPERM).
      assertThat(e.call()).isIn("bcc_func_load", "bpf_attach_kfunc");
      assertThat(e.object()).isEqualTo("kfunc__vfs_read");
      assertThat(e.errno()).isPositive();
      assertThat(e).hasMessageContaining("(errno " + e.errno() + ")");
      assertThat(module.attachments()).isEmpty();
    }
    assertThatThrownBy(() -> module.attachKfunc("vfs_read")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closeTwiceIsSafeAndLeavesNoProgramOrMapBehind() throws Exception {
    Lab.require(LabKernel.hasBpftool(), "bpftool missing");
    long perfEventsBefore = LabKernel.openAnonInodes("[perf_event]");
    BpfModule module = counters();
    module.attachTracepoint(GETPPID, "syscalls", "sys_enter_getppid");
    module.attachTracepoint(WRITE, "syscalls", "sys_enter_write");
    BpfTable calls = module.table("calls");
    List<Integer> programFds = List.of(module.load(GETPPID, ProgramType.TRACEPOINT),
        module.load(WRITE, ProgramType.TRACEPOINT));
    List<Long> programIds = List.of(LabKernel.fdinfo(programFds.get(0), "prog_id"),
        LabKernel.fdinfo(programFds.get(1), "prog_id"));
    long mapId = LabKernel.fdinfo(calls.fd(), "map_id");
    assertThat(programIds).allSatisfy(id -> assertThat(LabKernel.exists("prog", id)).isTrue());
    assertThat(LabKernel.exists("map", mapId)).isTrue();
    assertThat(programFds).allSatisfy(fd -> assertThat(LabKernel.fdTarget(fd)).isEqualTo("anon_inode:bpf-prog"));
    assertThat(LabKernel.openAnonInodes("[perf_event]")).isEqualTo(perfEventsBefore + 2);

    module.close();
    module.close();

    assertThat(LabKernel.openAnonInodes("[perf_event]")).isEqualTo(perfEventsBefore);
    assertThat(programFds).allSatisfy(fd -> assertThat(LabKernel.fdTarget(fd)).isNotEqualTo("anon_inode:bpf-prog"));

    assertThat(module.isClosed()).isTrue();
    assertThat(module.attachments()).isEmpty();
    assertThat(module.programStats()).isEmpty();
    assertThat(programIds).allSatisfy(id -> assertThat(LabKernel.gone("prog", id)).isTrue());
    assertThat(LabKernel.gone("map", mapId)).isTrue();
    BccException afterClose = catchThrowableOfType(BccException.class, calls::entries);
    assertThat(afterClose).hasMessage("entries calls: module counters is closed");
    assertThatThrownBy(() -> module.load(GETPPID, ProgramType.TRACEPOINT))
        .hasMessage("bcc_func_load " + GETPPID + ": module counters is closed");
  }

  @Test
  void libraryVersionIsTheLoadedLibraryFile() throws Exception {
    String mapped = Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .map(line -> line.substring(line.lastIndexOf(' ') + 1))
        .filter(path -> path.contains("/libbcc.so."))
        .findFirst().orElseThrow();
    assertThat(Bcc.libraryVersion()).isEqualTo(Path.of(mapped).getFileName().toString()
        .substring("libbcc.so.".length()));
    assertThat(Bcc.libraryVersion()).startsWith("0.26.");
  }

  private void writeToDevNull(int size, int times) {
    byte[] buffer = new byte[size];
    for (int i = 0; i < times; i++) {
      assertThat(TestLibc.INSTANCE.write(devNull, buffer, size)).isEqualTo(size);
    }
  }

  private static byte[] u32(int value) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
  }

  private static byte[] u64Bytes(long value) {
    return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
  }

  private static long u64(byte[] bytes, int offset) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong(offset);
  }

  private static long sumPerCpu(byte[] value, int stride) {
    long sum = 0;
    for (int offset = 0; offset < value.length; offset += stride) {
      sum += u64(value, offset);
    }
    return sum;
  }
}
