package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveKernelProbesTest {

  @Test
  void recognisesAFieldInATracefsFormatLine() {
    assertThat(LiveKernelProbes.declaresField("\tfield:void * location;\toffset:16;\tsize:8;\tsigned:0;",
        "location")).isTrue();
    assertThat(LiveKernelProbes.declaresField("\tfield:void * skbaddr;\toffset:8;\tsize:8;\tsigned:0;",
        "location")).isFalse();
    assertThat(LiveKernelProbes.declaresField("\tfield:char name[16];\toffset:8;", "name")).isTrue();
    assertThat(LiveKernelProbes.declaresField("\tfield:__data_loc char[] name;\toffset:20;", "name")).isTrue();
    assertThat(LiveKernelProbes.declaresField("print fmt: \"location=%p\"", "location")).isFalse();
    assertThat(LiveKernelProbes.declaresField("\tfield:unsigned short common_type;", "type")).isFalse();
  }

  @Test
  void firstLineKeepsOnlyTheHeadOfAMultiLineMessage() {
    assertThat(LiveKernelProbes.firstLine("bcc_func_load x: Permission denied (errno 13)\nverifier log..."))
        .isEqualTo("bcc_func_load x: Permission denied (errno 13)");
    assertThat(LiveKernelProbes.firstLine(null)).isEqualTo("failed");
  }
}
