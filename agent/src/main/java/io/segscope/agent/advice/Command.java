package io.segscope.agent.advice;

import io.segscope.host.names.NameCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One recommended command as exec(2) receives it: the exact bytes of every argument, program
 * first. Device and namespace names are arguments of their own, never pasted into a string a
 * shell or a program would parse. Immutable.
 */
public final class Command {
  private final List<byte[]> argv;

  private Command(List<byte[]> argv) {
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("build command: no program");
    }
    List<byte[]> copy = new ArrayList<>(argv.size());
    for (byte[] a : argv) {
      for (byte x : a) {
        if (x == 0) {
          throw new IllegalArgumentException("build command: an argument holds a NUL byte");
        }
      }
      copy.add(a.clone());
    }
    this.argv = List.copyOf(copy);
  }

  /** A command from exact argument bytes. */
  public static Command of(List<byte[]> argv) {
    return new Command(argv);
  }

  /** A command of constant arguments (program names, keywords, numbers): their UTF-8 bytes. */
  public static Command of(String... args) {
    return new Command(Arrays.stream(args).map(Command::text).toList());
  }

  /** A constant argument's bytes. */
  static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A device or namespace name's bytes, from segscope's name form ({@link NameCodec}). */
  static byte[] name(String nameForm) {
    return NameCodec.encode(nameForm);
  }

  /** The arguments' bytes (copies). */
  public List<byte[]> bytes() {
    return argv.stream().map(byte[]::clone).toList();
  }

  /** Each argument in segscope's name form: exact, {@code \\} and {@code \xHH} as in {@link NameCodec}. */
  public List<String> argv() {
    return argv.stream().map(NameCodec::decode).toList();
  }

  /** The command for a POSIX shell ({@link PosixShell}): run as {@code sh -c COMMAND}, it runs exactly argv. */
  public String shell() {
    return PosixShell.command(argv);
  }

  /** {@link #shell()} for a terminal or a log line (a newline in a namespace name shown as \x0a). */
  public String display() {
    return NameCodec.display(shell());
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Command other) || other.argv.size() != argv.size()) {
      return false;
    }
    for (int i = 0; i < argv.size(); i++) {
      if (!Arrays.equals(argv.get(i), other.argv.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (byte[] a : argv) {
      h = 31 * h + Arrays.hashCode(a);
    }
    return h;
  }

  @Override
  public String toString() {
    return shell();
  }
}
