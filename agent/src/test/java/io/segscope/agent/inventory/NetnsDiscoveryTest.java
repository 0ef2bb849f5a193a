package io.segscope.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.model.Netns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery on a fake /proc and /run/netns tree: files stand for nsfs inodes, symlinks for
 * processes sharing a namespace (stat follows links, as it does for /proc/PID/ns/net).
 */
class NetnsDiscoveryTest {
  @TempDir
  Path dir;

  private Path ns(String name) throws IOException {
    Path p = dir.resolve("nsfs").resolve(name);
    Files.createDirectories(p.getParent());
    Files.createFile(p);
    return p;
  }

  private void proc(String pid, Path target) throws IOException {
    Path link = dir.resolve("proc").resolve(pid).resolve("ns/net");
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, target);
  }

  @Test
  void deduplicatesByInodeNamesFromRunNetnsAndMarksRoot() throws IOException {
    Path host = ns("host");
    Path pod = ns("pod");
    Path other = ns("other");
    proc("1", host);
    proc("self", host);
    proc("42", host);
    proc("77", pod);
    proc("78", pod);
    proc("90", other);
    Files.createDirectories(dir.resolve("proc/notapid"));
    Path run = dir.resolve("run/netns");
    Files.createDirectories(run);
    Files.createLink(run.resolve("blue"), pod);

    List<Netns> found = new NetnsDiscovery(dir.resolve("proc"), List.of(run, dir.resolve("missing"))).scan();

    assertThat(found).hasSize(3);
    assertThat(found.get(0).root()).isTrue();
    assertThat(found.get(0).inode()).isEqualTo(NetnsDiscovery.inode(host));
    assertThat(found).filteredOn(n -> n.inode() == NetnsDiscovery.inode(pod)).singleElement()
        .satisfies(n -> {
          assertThat(n.name()).isEqualTo("blue");
          assertThat(n.path()).isEqualTo(run.resolve("blue"));
          assertThat(n.root()).isFalse();
        });
    assertThat(found).filteredOn(n -> n.inode() == NetnsDiscovery.inode(other)).singleElement()
        .satisfies(n -> assertThat(n.name()).isEmpty());
  }

  @Test
  void unreadablePid1FallsBackToOwnNamespace() throws IOException {
    Path self = ns("self");
    proc("self", self);
    proc("5", ns("five"));
    Files.createDirectories(dir.resolve("proc/1/ns")); // PID 1 present but its ns/net unreadable
    List<Netns> found = new NetnsDiscovery(dir.resolve("proc"), List.of()).scan();
    assertThat(found).hasSize(2);
    assertThat(found.get(0).root()).isTrue();
    assertThat(found.get(0).inode()).isEqualTo(NetnsDiscovery.inode(self));
  }
}
