package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class AllChecksTest {
  @Test
  void failsOnceWithEveryFailedCheckAfterRunningThemAll() throws Exception {
    AllChecks all = new AllChecks();
    int[] ran = {0};
    all.check(() -> {
      ran[0]++;
      assertThat(1).as("first").isEqualTo(2);
    });
    all.check(() -> ran[0]++);
    all.check(() -> {
      ran[0]++;
      assertThat("a").as("third").isEqualTo("b");
    });
    assertThat(ran[0]).isEqualTo(3);
    assertThatThrownBy(all::assertAll).isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("2 check(s) failed:").hasMessageContaining("[first]").hasMessageContaining("[third]")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
  }

  @Test
  void passesWhenEveryCheckHeldAndThrowsOtherExceptionsAtOnce() throws Exception {
    AllChecks all = new AllChecks();
    all.check(() -> assertThat(1).isEqualTo(1));
    all.assertAll();
    assertThatThrownBy(() -> all.check(() -> {
      throw new IOException("read failed");
    })).isInstanceOf(IOException.class);
  }
}
