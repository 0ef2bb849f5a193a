package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.testkit.Requirement;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class PrerequisitesTest {
  @Test
  void anAbsentToolIsNamed() {
    Class<? extends Throwable> expected = Requirement.onCi()
        ? AssertionFailedError.class : TestAbortedException.class;
    assertThatThrownBy(() -> Prerequisites.requireTool("segscope-no-such-tool", "this test"))
        .isInstanceOf(expected)
        .hasMessageContaining("this test needs the `segscope-no-such-tool` tool");
  }
}
