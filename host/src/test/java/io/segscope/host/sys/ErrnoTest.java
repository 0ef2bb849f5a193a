package io.segscope.host.sys;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one way an errno is read and put into words. */
class ErrnoTest {
  @Test
  void describesErrnoNumbersLikeTheCLibraryWithTheNumber() {
    assertThat(Errno.describe(1)).isEqualTo("Operation not permitted (errno 1)");
    assertThat(Errno.text(2)).isEqualTo("No such file or directory");
    assertThat(Errno.text(524)).contains("not supported");
    assertThat(Errno.text(0)).isEqualTo("failed without an errno");
  }

  @Test
  void readsErrnoOnlyFromFailuresAndFallsBackToNegativeReturns() {
    assertThat(Errno.ofFailure(-1, 13)).isEqualTo(13);
    assertThat(Errno.ofFailure(-1, 0)).isZero();
    assertThat(Errno.ofFailure(-22, 0)).isEqualTo(22);
    assertThat(Errno.ofFailure(-22, 1)).isEqualTo(1);
    assertThat(Errno.ofFailure(-100000, 0)).isZero();
  }

  @Test
  void unsupportedMeansTheKernelLacksTheFeatureNotThatItRefusedUs() {
    assertThat(Errno.meansUnsupported(Errno.EINVAL)).isTrue();
    assertThat(Errno.meansUnsupported(Errno.EOPNOTSUPP)).isTrue();
    assertThat(Errno.meansUnsupported(Errno.ENOSYS)).isTrue();
    assertThat(Errno.meansUnsupported(Errno.ENOTSUPP)).isTrue();
    assertThat(Errno.meansUnsupported(Errno.EPERM)).isFalse();
    assertThat(Errno.meansUnsupported(Errno.ENOENT)).isFalse();
    assertThat(Errno.meansUnsupported(Errno.ENOSPC)).isFalse();
  }
}
