package io.segscope.agent.advice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Quoting for a POSIX shell: what it looks like, and real shells giving back every byte. */
class PosixShellTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void plainWordsStayBareAndTheRestIsQuoted() {
    assertThat(PosixShell.quote(utf8("veth0"))).isEqualTo("veth0");
    assertThat(PosixShell.quote(utf8("--net=/run/netns/lab-1"))).isEqualTo("--net=/run/netns/lab-1");
    assertThat(PosixShell.quote(utf8(""))).isEqualTo("''");
    assertThat(PosixShell.quote(utf8("$(touch${IFS}c)"))).isEqualTo("'$(touch${IFS}c)'");
    assertThat(PosixShell.quote(utf8("a'b"))).isEqualTo("'a'\\''b'");
    assertThat(PosixShell.quote(utf8("'"))).isEqualTo("\\'");
    assertThat(PosixShell.quote(utf8("a\\b"))).isEqualTo("'a\\b'");
    assertThat(PosixShell.quote(utf8("e\u001b[31m"))).isEqualTo("'e'\"$(printf '\\033')\"'[31m'");
    assertThat(PosixShell.quote(new byte[] {(byte) 0xff, (byte) 0xfe})).isEqualTo("\"$(printf '\\377\\376')\"");
    assertThat(PosixShell.quote(utf8("u\u2028"))).isEqualTo("'u'\"$(printf '\\342\\200\\250')\"");
    assertThat(PosixShell.quote(utf8("\u00e9t\u00e9"))).isEqualTo("'\u00e9t\u00e9'");
    assertThat(PosixShell.quote(utf8("a\n"))).isEqualTo("'a\n'");
    assertThatThrownBy(() -> PosixShell.quote(new byte[] {'a', 0})).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void realShellsGiveBackEveryByteOfEveryArgument() throws Exception {
    List<byte[]> args = new ArrayList<>();
    for (int b = 1; b < 256; b++) {
      args.add(new byte[] {(byte) b});
      args.add(new byte[] {'x', (byte) b, '\n', (byte) b});
    }
    args.add(utf8("$(touch${IFS}c)"));
    args.add(utf8("a\n\n"));
    args.add(new byte[0]);
    Random r = new Random(42);
    for (int i = 0; i < 600; i++) {
      byte[] a = new byte[1 + r.nextInt(20)];
      r.nextBytes(a);
      for (int k = 0; k < a.length; k++) {
        a[k] = a[k] == 0 ? (byte) '\\' : a[k];
      }
      args.add(a);
    }
    List<byte[]> argv = new ArrayList<>(List.of(utf8("printf"), utf8("%s\\0")));
    argv.addAll(args);
    String command = PosixShell.command(argv);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (byte[] a : args) {
      expected.writeBytes(a);
      expected.write(0);
    }
    int shells = 0;
    for (String shell : List.of("/bin/sh", "/usr/bin/dash", "/bin/bash", "/bin/busybox")) {
      if (!Files.isExecutable(Path.of(shell))) {
        continue;
      }
      shells++;
      List<String> cmd = new ArrayList<>(List.of(shell));
      if (shell.endsWith("busybox")) {
        cmd.add("sh");
      }
      // the script on stdin: one argument of this size would exceed MAX_ARG_STRLEN
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      var feed = CompletableFuture.runAsync(() -> {
        try (var in = p.getOutputStream()) {
          in.write(command.getBytes(StandardCharsets.UTF_8));
          in.write('\n');
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      byte[] out = p.getInputStream().readAllBytes();
      feed.get(60, TimeUnit.SECONDS);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(shell).isZero();
      assertThat(Arrays.equals(out, expected.toByteArray())).as("%s gives back every argument's bytes", shell).isTrue();
    }
    assertThat(shells).as("a POSIX shell to test with").isPositive();
  }
}
