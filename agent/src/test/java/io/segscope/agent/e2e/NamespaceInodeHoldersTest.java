package io.segscope.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NamespaceInodeHoldersTest {
  private static long inode(String link) throws Exception {
    String t = Files.readSymbolicLink(Path.of(link)).toString(); // e.g. net:[4026531840]
    return Long.parseLong(t.substring(t.indexOf('[') + 1, t.length() - 1));
  }

  @Test
  void findsThisProcessAsAHolderOfItsOwnNamespaces() throws Exception {
    String self = "pid " + ProcessHandle.current().pid() + " ";
    assertThat(NamespaceInodeHolders.of(inode("/proc/self/ns/uts")))
        .anySatisfy(h -> assertThat(h).startsWith(self).endsWith(": its uts namespace"));
  }

  @Test
  void findsNoHolderOfAnInodeNoNamespaceHas() {
    assertThat(NamespaceInodeHolders.of(1)).isEmpty();
  }
}
