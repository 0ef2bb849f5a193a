package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.deploy.RepoFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every shell script of the repository passes Debian's {@code shellcheck} at its default severity
 * (style and up), following sourced files ({@code -x}). Scripts are found by content, not by a list:
 * a shell shebang ({@code sh}, {@code bash}, {@code dash}, {@code busybox sh}), a
 * {@code # shellcheck shell=} directive on the first line (sourced libraries), or the {@code .sh}
 * suffix; so a new script is checked without anyone remembering to add it.
 */
class ShellScriptsTest {
  static final Tool SHELLCHECK = new Tool(Path.of("/usr/bin/shellcheck"),
      "apt-get install shellcheck, or scripts/setup --with-test-tools");

  private static final Pattern SHELL_SHEBANG =
      Pattern.compile("^#!\\s*(/usr)?/bin/(env\\s+)?(ba|da)?sh\\b.*|^#!\\s*/bin/busybox\\s+sh\\b.*");
  /** Build output, VCS data, the guest image cache and benchmark results hold no scripts of ours. */
  private static final Set<String> SKIPPED_DIRS = Set.of("target", ".git", ".guest", "bench-results",
      "node_modules");

  @Test
  void everyShellScriptIsShellcheckClean() {
    SHELLCHECK.require();
    Path root = RepoFiles.root();
    List<String> scripts = scripts(root);
    assertThat(scripts).as("shell scripts found under %s", root)
        .contains("segscope", ".ci/run", "scripts/setup", "scripts/test", "scripts/bench", "scripts/guest/lib.sh");
    List<String> args = new ArrayList<>(List.of("-x", "--format=gcc"));
    args.addAll(scripts);
    Tool.Result r = SHELLCHECK.run(root, args.toArray(String[]::new));
    assertThat(r.output()).as("shellcheck -x on %d scripts (exit %d)", scripts.size(), r.exitCode()).isEmpty();
    assertThat(r.exitCode()).isZero();
  }

  @Test
  void findsScriptsByShebangDirectiveOrSuffix() {
    assertThat(isScript("x", "#!/usr/bin/env bash")).isTrue();
    assertThat(isScript("x", "#!/bin/bash -e")).isTrue();
    assertThat(isScript("x", "#!/bin/sh")).isTrue();
    assertThat(isScript("x", "#!/bin/busybox sh")).isTrue();
    assertThat(isScript("lib", "# shellcheck shell=bash")).isTrue();
    assertThat(isScript("lib.sh", "")).isTrue();
    assertThat(isScript("x", "#!/usr/bin/env python3")).isFalse();
    assertThat(isScript("x", "#!/bin/shiny")).isFalse();
    assertThat(isScript("README.md", "# segscope")).isFalse();
  }

  /** Repository-relative paths of the shell scripts, sorted. */
  static List<String> scripts(Path root) {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> root.relativize(p).toString().isEmpty() || !skipped(root.relativize(p)))
          .filter(Files::isRegularFile)
          .filter(p -> isScript(p.getFileName().toString(), firstLine(p)))
          .map(p -> root.relativize(p).toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("list the scripts under " + root + ": " + e.getMessage(), e);
    }
  }

  private static boolean skipped(Path relative) {
    for (Path part : relative) {
      if (SKIPPED_DIRS.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  static boolean isScript(String fileName, String firstLine) {
    return fileName.endsWith(".sh") || SHELL_SHEBANG.matcher(firstLine).matches()
        || firstLine.startsWith("# shellcheck shell=");
  }

  private static String firstLine(Path file) {
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
      String line = r.readLine();
      return line == null ? "" : line;
    } catch (IOException e) {
      throw new UncheckedIOException("read " + file + ": " + e.getMessage(), e);
    }
  }
}
