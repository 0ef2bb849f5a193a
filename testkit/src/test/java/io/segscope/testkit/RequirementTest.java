package io.segscope.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequirementTest {
  @Test
  void aMissingPrerequisiteSkipsWithItsReasonButFailsOnCi() {
    assertThatThrownBy(() -> Requirement.unmet("the `iperf3` tool", false))
        .isInstanceOf(TestAbortedException.class).hasMessage("prerequisite missing: the `iperf3` tool");
    assertThatThrownBy(() -> Requirement.unmet("the `iperf3` tool", true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessage("prerequisite missing (CI=true makes this a failure): the `iperf3` tool");
  }

  @Test
  void onlyTheValueTrueMeansCi() {
    assertThat(Requirement.onCi("true")).isTrue();
    assertThat(Requirement.onCi(" TRUE ")).isTrue();
    assertThat(Requirement.onCi("1")).isFalse();
    assertThat(Requirement.onCi("")).isFalse();
    assertThat(Requirement.onCi(null)).isFalse();
  }

  @Test
  void aTestForOtherKernelsIsSkippedSayingWhichNeverFailed() {
    assertThatThrownBy(() -> Requirement.appliesOnlyWhere(false, "kernels without kprobes"))
        .isInstanceOf(TestAbortedException.class)
        .hasMessage("not applicable here: this test is for kernels without kprobes");
    Requirement.appliesOnlyWhere(true, "kernels without kprobes");
    Requirement.require(true, "nothing");
  }
}
