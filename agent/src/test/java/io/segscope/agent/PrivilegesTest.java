package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class PrivilegesTest {
  @Test
  void rootHasEverything() {
    assertThat(Privileges.missing(new BigInteger("000001ffffffffff", 16))).isEmpty();
  }

  @Test
  void noCapabilitiesNamesEachMissingOne() {
    assertThat(Privileges.missing(BigInteger.ZERO)).hasSize(4)
        .anyMatch(s -> s.startsWith("CAP_BPF")).anyMatch(s -> s.startsWith("CAP_PERFMON"))
        .anyMatch(s -> s.startsWith("CAP_SYS_ADMIN")).anyMatch(s -> s.startsWith("CAP_SYSLOG"));
  }

  @Test
  void bpfAndPerfmonWithoutSysAdminStillNeedSetns() {
    BigInteger caps = BigInteger.ZERO.setBit(Privileges.CAP_BPF).setBit(Privileges.CAP_PERFMON)
        .setBit(Privileges.CAP_SYSLOG);
    assertThat(Privileges.missing(caps)).singleElement().asString().startsWith("CAP_SYS_ADMIN");
  }
}
