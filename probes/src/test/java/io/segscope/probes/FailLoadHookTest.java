package io.segscope.probes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The injected fault {@link ProbeSession.Options#failLoad()} (the hidden flag {@code --inject-load-failure}):
 * which path fails to load in which mode. The guest's kprobe boot names every path's fentry mode at once, so that auto mode falls
 * back to kprobe on each.
 */
class FailLoadHookTest {

  @Test
  void oneEntryNamesExactlyThatPathInThatMode() {
    assertThat(SessionOpener.injectedFailure("gso_tx:fentry", MeasuredPath.GSO_TX, ProbeMode.FENTRY)).isTrue();
    assertThat(SessionOpener.injectedFailure("gso_tx:fentry", MeasuredPath.GSO_TX, ProbeMode.KPROBE)).isFalse();
    assertThat(SessionOpener.injectedFailure("gso_tx:fentry", MeasuredPath.XDP_GENERIC, ProbeMode.FENTRY)).isFalse();
  }

  @Test
  void commaSeparatedEntriesNameEachOfTheirPaths() {
    String both = "gso_tx:fentry, xdp_generic:fentry";
    assertThat(SessionOpener.injectedFailure(both, MeasuredPath.GSO_TX, ProbeMode.FENTRY)).isTrue();
    assertThat(SessionOpener.injectedFailure(both, MeasuredPath.XDP_GENERIC, ProbeMode.FENTRY)).isTrue();
    assertThat(SessionOpener.injectedFailure(both, MeasuredPath.XDP_GENERIC, ProbeMode.KPROBE)).isFalse();
    assertThat(SessionOpener.injectedFailure("gso_tx:kprobe,xdp_generic:tracepoint", MeasuredPath.GSO_TX,
        ProbeMode.FENTRY)).isFalse();
  }

  @Test
  void noEntryOrAPartialNameFailsNothing() {
    for (String none : new String[] {"", ",", "gso_tx", "gso_tx:", "gso_tx:fentryx", "xgso_tx:fentry"}) {
      assertThat(SessionOpener.injectedFailure(none, MeasuredPath.GSO_TX, ProbeMode.FENTRY)).as("'%s'", none)
          .isFalse();
    }
  }
}
