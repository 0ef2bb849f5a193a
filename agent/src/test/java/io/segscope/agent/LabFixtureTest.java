package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.lab.Lab;
import io.segscope.lab.LabTest;
import io.segscope.lab.Netns;
import io.segscope.lab.Scenarios;
import io.segscope.lab.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The namespace lab from the testkit module is usable from agent tests. */
@LabTest
class LabFixtureTest {
  @Test
  void agentTestsGetALabAndItsScenarios(Lab lab) throws Exception {
    Topology s1 = Scenarios.s1GsoMismatch(lab, false);
    Netns sender = s1.sender();

    assertThat(sender.name()).startsWith(lab.prefix() + "-");
    assertThat(Files.getAttribute(Path.of("/run/netns", sender.name()), "unix:ino")).isEqualTo(sender.inode());
    assertThat(lab.exec(s1.device("uplink").ns(), "ip", "-d", "link", "show", "dev", "up0"))
        .contains("gso_max_size 16384");
  }
}
