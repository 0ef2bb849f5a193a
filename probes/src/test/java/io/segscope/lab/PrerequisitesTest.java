package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class PrerequisitesTest {
    @Test
    void aMissingPrerequisiteSkipsWithTheReason() {
        assertThatThrownBy(() -> Prerequisites.unmet("the `iperf3` tool", null))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("prerequisite missing: the `iperf3` tool");
    }

    @Test
    void onCiAMissingPrerequisiteFails() {
        assertThatThrownBy(() -> Prerequisites.unmet("the `iperf3` tool", "true"))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("prerequisite missing on CI: the `iperf3` tool");
    }

    @Test
    void anAbsentToolIsNamed() {
        Class<? extends Throwable> expected = "true".equalsIgnoreCase(System.getenv("CI"))
                ? AssertionFailedError.class : TestAbortedException.class;
        assertThatThrownBy(() -> Prerequisites.requireTool("segscope-no-such-tool", "this test"))
                .isInstanceOf(expected)
                .hasMessageContaining("this test needs the `segscope-no-such-tool` tool");
    }
}
