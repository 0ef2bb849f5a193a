package io.segscope.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** jcmd output of OpenJDK 17 as recorded from the agent on the development machine. */
class JvmMemoryTest {
  static final String NMT = """
      12345:

      Native Memory Tracking:

      (Omitting categories weighting less than 1KB)

      Total: reserved=1621547KB, committed=162087KB
             mmap:   reserved=1604292KB, committed=144832KB\s
      -                 Java Heap (reserved=196608KB, committed=98168KB)
                                  (mmap: reserved=196608KB, committed=98168KB)\s
      -                     Class (reserved=1049133KB, committed=3181KB)
                                  (classes #5021)
      -                    Thread (reserved=28891KB, committed=2747KB)
                                  (thread #28)
      -                      Code (reserved=248267KB, committed=11223KB)
      -        Shared class space (reserved=16384KB, committed=12060KB)
      -                 Metaspace (reserved=65660KB, committed=18428KB)
      """;
  static final String HEAP = """
      12345:
       def new generation   total 29376K, used 11799K [0x00000000f4000000, 0x00000000f5fe0000, 0x00000000f8000000)
        eden space 26112K,  32% used [0x00000000f4000000, 0x00000000f4855ee0, 0x00000000f5980000)
       tenured generation   total 65220K, used 57422K [0x00000000f8000000, 0x00000000fbfb1000, 0x0000000100000000)
       Metaspace       used 20054K, committed 20480K, reserved 1114112K
      """;
  static final String HISTOGRAM = """
      12345:
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:        113540       12452384  [B (java.base@17.0.15)
         2:        111769        2682456  java.lang.String (java.base@17.0.15)
         3:          6184        1910488  [Ljava.lang.Object; (java.base@17.0.15)
      """;

  @Test
  void nmtCategoriesAndTotalAreCommittedBytes() {
    assertThat(JvmMemory.nmtCategories(NMT)).containsEntry("Java Heap", 98168L * 1024)
        .containsEntry("Shared class space", 12060L * 1024).containsEntry("Metaspace", 18428L * 1024).hasSize(6);
    assertThat(JvmMemory.nmtTotal(NMT)).isEqualTo(162087L * 1024);
    assertThatThrownBy(() -> JvmMemory.nmtCategories("12345:\nNative memory tracking is not enabled\n"))
        .hasMessageContaining("NMT off?");
  }

  @Test
  void heapIsTheSumOfTheGenerationsNotMetaspace() {
    assertThat(JvmMemory.heap(HEAP)).containsExactly((29376L + 65220) * 1024, (11799L + 57422) * 1024);
    assertThat(JvmMemory.heap(" garbage-first heap   total 262144K, used 17409K [0x0, 0x0)\n"))
        .containsExactly(262144L * 1024, 17409L * 1024);
    assertThatThrownBy(() -> JvmMemory.heap("nothing")).hasMessageContaining("GC.heap_info");
  }

  @Test
  void topClassesComeFromTheHistogramInOrder() {
    assertThat(JvmMemory.topClasses(HISTOGRAM, 2)).containsExactly("[B: 12452384 B (113540)",
        "java.lang.String: 2682456 B (111769)");
  }

  @Test
  void procLinesAreReadByKey() {
    String status = "Name:\tjava\nVmRSS:\t  187872 kB\nThreads:\t28\n";
    assertThat(JvmMemory.kib(status, "VmRSS")).isEqualTo(187872L * 1024);
    assertThat(JvmMemory.number(status, "Threads")).isEqualTo(28);
    assertThatThrownBy(() -> JvmMemory.kib(status, "VmHWM")).hasMessageContaining("no VmHWM line");
  }
}
