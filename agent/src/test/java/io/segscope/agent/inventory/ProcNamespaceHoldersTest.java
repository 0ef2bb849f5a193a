package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding who holds a namespace, on a /proc laid out as the kernel lays it out: fd links read
 * {@code net:[INODE]}, mountinfo lines as recorded on this host (an {@code ip netns add} bind mount),
 * and ns/net files (whose inode stands for the namespace's here). The real /proc: {@code
 * NamespaceLifecycleIT}.
 */
class ProcNamespaceHoldersTest {
  /** /proc/self/mountinfo lines recorded on this host: two named namespaces and an ordinary mount. */
  static final String MOUNTINFO = String.join("\n",
      "25 1 0:22 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w",
      "50 49 0:4 net:[4026532315] /run/netns/sitesx-snd rw shared:2 - nsfs nsfs rw",
      "52 49 0:4 net:[4026532388] /run/netns/sitesx-rcv rw shared:4 - nsfs nsfs rw",
      "60 25 0:4 mnt:[4026532400] /run/mntns/x rw - nsfs nsfs rw",
      "");

  @TempDir
  Path proc;

  private Path pid(String pid) throws Exception {
    Path p = proc.resolve(pid);
    Files.createDirectories(p.resolve("fd"));
    Files.createDirectories(p.resolve("task").resolve(pid).resolve("ns"));
    Files.createDirectories(p.resolve("ns"));
    return p;
  }

  @Test
  void anOpenFileDescriptorHoldsANamespace() throws Exception {
    Path p = pid("4242");
    Files.createSymbolicLink(p.resolve("fd/3"), Path.of("net:[4026532999]"));
    Files.createSymbolicLink(p.resolve("fd/4"), Path.of("socket:[123]"));
    Files.createSymbolicLink(p.resolve("fd/5"), Path.of("mnt:[4026532998]"));
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(4026532999L, 4026532998L, 123L))).containsExactly(4026532999L);
  }

  @Test
  void anFdOpenedThroughABindMountThatWasUnmountedStillHoldsIt() throws Exception {
    // exec 3</run/netns/x; ip netns delete x: the link reads "/" (the detached mount), fdinfo has the
    // inode (recorded on this host, kernel 6.18)
    Path p = pid("4242");
    Files.createDirectories(p.resolve("fdinfo"));
    Files.createSymbolicLink(p.resolve("fd/3"), Path.of("/"));
    Files.writeString(p.resolve("fdinfo/3"), "pos:\t0\nflags:\t0100000\nmnt_id:\t63\nino:\t4026532392\n");
    Files.createSymbolicLink(p.resolve("fd/4"), Path.of("/run/netns/y")); // still mounted: the path
    Files.writeString(p.resolve("fdinfo/4"), "pos:\t0\nflags:\t0100000\nmnt_id:\t64\nino:\t4026532393\n");
    Files.createSymbolicLink(p.resolve("fd/5"), Path.of("/var/log/syslog")); // an ordinary file
    Files.writeString(p.resolve("fdinfo/5"), "pos:\t0\nflags:\t0100000\nmnt_id:\t25\nino:\t1234\n");
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(4026532392L, 4026532393L, 1234L))).containsExactlyInAnyOrder(4026532392L,
        4026532393L);
  }

  @Test
  void aBindMountInAnyMountNamespaceHoldsIt() throws Exception {
    Path p = pid("100");
    Files.writeString(p.resolve("mountinfo"), MOUNTINFO);
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(4026532315L, 4026532388L, 4026532400L, 4026532111L)))
        .containsExactlyInAnyOrder(4026532315L, 4026532388L); // a mount namespace's nsfs file is not a netns
  }

  @Test
  void aProcessOrOneOfItsThreadsInsideHoldsIt() throws Exception {
    Path p = pid("7");
    Path threadNs = p.resolve("task/7/ns/net");
    Files.writeString(threadNs, "");
    long inode = NetnsDiscovery.inode(threadNs);
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(inode, 1L))).containsExactly(inode);
  }

  @Test
  void aHolderThatStaysIsFoundAgainWithoutAScanAndOneThatGoesIsNoticed() throws Exception {
    Path p = pid("4242");
    Path fd = p.resolve("fd/3");
    Files.createSymbolicLink(fd, Path.of("net:[4026532999]"));
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(4026532999L))).containsExactly(4026532999L);
    assertThat(holders.held(Set.of(4026532999L))).containsExactly(4026532999L);
    assertThat(holders.scans()).isEqualTo(1);
    Files.delete(fd); // the holder closed it
    assertThat(holders.held(Set.of(4026532999L))).isEmpty();
    assertThat(holders.scans()).isEqualTo(2);
    Files.writeString(p.resolve("mountinfo"), MOUNTINFO); // now bind-mounted elsewhere
    assertThat(holders.held(Set.of(4026532315L))).containsExactly(4026532315L);
    assertThat(holders.held(Set.of(4026532315L))).containsExactly(4026532315L);
    assertThat(holders.scans()).isEqualTo(3);
  }

  @Test
  void nothingHoldsWhatNobodyRefersTo() throws Exception {
    Path p = pid("1");
    Files.writeString(p.resolve("mountinfo"), MOUNTINFO);
    Files.createSymbolicLink(p.resolve("fd/0"), Path.of("/dev/null"));
    Files.createDirectories(proc.resolve("self"));
    var holders = new ProcNamespaceHolders(proc);
    assertThat(holders.held(Set.of(4026532777L))).isEmpty();
    assertThat(holders.held(Set.of())).isEmpty();
  }

  @Test
  void theRealProcFindsThisProcesssOwnNamespace() {
    long own = NetnsDiscovery.inode(Path.of("/proc/self/ns/net"));
    assertThat(new ProcNamespaceHolders(Path.of("/proc")).held(Set.of(own, 1L))).containsExactly(own);
  }
}
