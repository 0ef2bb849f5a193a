package io.segscope.agent.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Cgroup paths as the runtimes and systemd write them (recorded from /proc/PID/cgroup on real hosts). */
class CgroupOwnerTest {
  private static final String ID = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a";

  @Test
  void theUnifiedHierarchyWinsThenSystemdsThenTheFirstV1One() {
    // cgroup v1 + v2 hybrid, as on the test machine under this containerd lab
    String hybrid = "9:name=systemd:/k8s.io/" + ID + "\n8:pids:/k8s.io/" + ID + "\n0::/k8s.io/" + ID + "\n";
    assertThat(CgroupOwner.path(hybrid)).isEqualTo("/k8s.io/" + ID);
    assertThat(CgroupOwner.path("12:pids:/docker/" + ID + "\n1:name=systemd:/docker/" + ID + "\n0::/\n"))
        .isEqualTo("/docker/" + ID);
    assertThat(CgroupOwner.path("3:cpu:/a\n2:memory:/b\n")).isEqualTo("/a");
    assertThat(CgroupOwner.path("0::/\n")).isEqualTo("/");
    assertThat(CgroupOwner.path("garbage without colons\n\n")).isEqualTo("/");
  }

  @Test
  void kubeletPodsUnderTheSystemdDriverGiveTheContainerAndThePodUid() {
    Workload w = CgroupOwner.classify("/kubepods.slice/kubepods-burstable.slice/"
        + "kubepods-burstable-pod6f1c2a52_8a1e_4f1e_9d0b_3b9d2f8c1a10.slice/cri-containerd-" + ID + ".scope",
        "pause\n", 4242);
    assertThat(w.kind()).isEqualTo(WorkloadKind.POD);
    assertThat(w.podUid()).isEqualTo("6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10");
    assertThat(w.container()).isEqualTo(ID);
    assertThat(w.runtime()).isEqualTo("containerd");
    assertThat(w.name()).isEqualTo("pod 6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10");
    assertThat(w.process()).isEqualTo("pause");
    assertThat(w.pid()).isEqualTo(4242);
    assertThat(w.source()).isEqualTo("cgroup");
  }

  @Test
  void kubeletPodsUnderTheCgroupfsDriverAndCriO() {
    Workload w = CgroupOwner.classify("/kubepods/besteffort/pod6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10/" + ID, "pause", 7);
    assertThat(w.kind()).isEqualTo(WorkloadKind.POD);
    assertThat(w.podUid()).isEqualTo("6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10");
    assertThat(w.container()).isEqualTo(ID);
    Workload crio = CgroupOwner.classify("/kubepods.slice/kubepods-pod6f1c2a52_8a1e_4f1e_9d0b_3b9d2f8c1a10.slice/crio-"
        + ID + ".scope", "pause", 8);
    assertThat(crio.runtime()).isEqualTo("cri-o");
    assertThat(crio.podUid()).isEqualTo("6f1c2a52-8a1e-4f1e-9d0b-3b9d2f8c1a10");
  }

  @Test
  void containersOutsideKubernetes() {
    Workload docker = CgroupOwner.classify("/system.slice/docker-" + ID + ".scope", "nginx", 10);
    assertThat(docker.kind()).isEqualTo(WorkloadKind.CONTAINER);
    assertThat(docker.container()).isEqualTo(ID);
    assertThat(docker.runtime()).isEqualTo("docker");
    assertThat(docker.name()).isEqualTo("docker:3f2a1b0c9d8e");
    assertThat(CgroupOwner.classify("/docker/" + ID, "nginx", 10).runtime()).isEqualTo("docker");
    assertThat(CgroupOwner.classify("/machine.slice/libpod-" + ID + ".scope/container", "app", 11).runtime())
        .as("podman's nested container cgroup").isEqualTo("podman");
    Workload ctr = CgroupOwner.classify("/k8s.io/" + ID, "sleep", 12);
    assertThat(ctr.kind()).isEqualTo(WorkloadKind.CONTAINER);
    assertThat(ctr.runtime()).isEqualTo("containerd");
    Workload lxc = CgroupOwner.classify("/lxc.payload.web1", "init", 13);
    assertThat(lxc.container()).isEqualTo("web1");
    assertThat(lxc.name()).isEqualTo("lxc:web1");
  }

  @Test
  void systemdServicesAndPlainProcesses() {
    Workload unit = CgroupOwner.classify("/system.slice/dnsmasq.service", "dnsmasq", 20);
    assertThat(unit.kind()).isEqualTo(WorkloadKind.SERVICE);
    assertThat(unit.unit()).isEqualTo("dnsmasq.service");
    assertThat(unit.name()).isEqualTo("dnsmasq.service");
    assertThat(CgroupOwner.classify("/user.slice/user-1000.slice/session-3.scope", "bash", 21).kind())
        .as("a login session is a person's shell, not a service").isEqualTo(WorkloadKind.PROCESS);
    assertThat(CgroupOwner.classify("/init.scope", "systemd", 1).kind()).isEqualTo(WorkloadKind.PROCESS);
    Workload p = CgroupOwner.classify("/", "iperf3\n", 22);
    assertThat(p.kind()).isEqualTo(WorkloadKind.PROCESS);
    assertThat(p.name()).isEqualTo("iperf3");
    assertThat(CgroupOwner.classify("/", "", 23).name()).isEqualTo("pid 23");
  }

  @Test
  void hostileNamesStayDataAndAreBounded() {
    Workload p = CgroupOwner.classify("/", "$(reboot);\u0007", 30);
    assertThat(p.name()).isEqualTo("$(reboot);\u0007");
    Workload long_ = CgroupOwner.classify("/system.slice/" + "x".repeat(400) + ".service", "x", 31);
    assertThat(long_.name()).hasSize(Workload.MAX_VALUE);
    assertThat(CgroupOwner.classify("/docker/" + ID.toUpperCase(), "x", 32).kind())
        .as("ids are lower-case hex; anything else is no container id").isEqualTo(WorkloadKind.PROCESS);
  }
}
