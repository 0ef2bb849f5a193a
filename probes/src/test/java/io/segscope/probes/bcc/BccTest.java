package io.segscope.probes.bcc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BccTest {

  @Test
  void takesTheUpstreamVersionFromDebianVersions() {
    assertThat(Bcc.versionFromDebian("0.26.0+ds-1")).contains("0.26.0");
    assertThat(Bcc.versionFromDebian("1:0.26.0-2")).contains("0.26.0");
    assertThat(Bcc.versionFromDebian("0.29.1+ds-1~bpo12+1")).contains("0.29.1");
    assertThat(Bcc.versionFromDebian("")).isEmpty();
    assertThat(Bcc.versionFromDebian("ds-1")).isEmpty();
  }

  @Test
  void takesTheVersionFromTheLibraryFileName() {
    assertThat(Bcc.versionFromFileName("libbcc.so.0.26.0")).contains("0.26.0");
    assertThat(Bcc.versionFromFileName("libbcc.so.0.30.0")).contains("0.30.0");
    assertThat(Bcc.versionFromFileName("libbcc.so.0")).isEmpty();
    assertThat(Bcc.versionFromFileName("libbcc_bpf.so.0.26.0")).isEmpty();
  }

  @Test
  void acceptsOnlyThe026Series() {
    assertThat(Bcc.isCompatibleVersion("0.26.0")).isTrue();
    assertThat(Bcc.isCompatibleVersion("0.26.1")).isTrue();
    assertThat(Bcc.isCompatibleVersion("0.26")).isTrue();
    assertThat(Bcc.isCompatibleVersion("0.25.0")).isFalse();
    assertThat(Bcc.isCompatibleVersion("0.260.0")).isFalse();
    assertThat(Bcc.isCompatibleVersion("0.2")).isFalse();
    assertThat(Bcc.isCompatibleVersion("unknown")).isFalse();
  }

  @Test
  void incompatibleVersionsAreExplainedWithTheDebianPackage() {
    assertThat(Bcc.incompatibility("0.26.0")).isEmpty();
    assertThat(Bcc.incompatibility("0.29.1")).hasValue(
        "found 0.29.1, need 0.26.x (install the Debian package libbpfcc 0.26, or put libbcc.so.0.26.x"
            + " on the library path)");
    assertThat(Bcc.incompatibility("unknown")).hasValueSatisfying(
        why -> assertThat(why).startsWith("found unknown,").contains("libbpfcc"));
  }
}
