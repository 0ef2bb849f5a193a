package io.segscope.probes.sys;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes the tracefs kprobe events that processes which died without cleaning up left behind: those
 * libbcc names {@code <p|r>_<function>[_<n>]_bcc_<pid>} (segscope before its probe redesign attached
 * kprobes through libbcc; any libbcc tool does the same) whose PID no longer runs. segscope itself
 * creates no tracefs events today (kprobes go through the kprobe PMU, released with their file
 * descriptor), so these are the only kprobe events a SIGKILL can leave.
 *
 * <p>Safe by construction: only names of that form with a dead PID are touched; each removal is its
 * own {@code -:GROUP/EVENT} command appended to {@code kprobe_events} (never truncated: that would
 * remove every event of the host); an event still in use (a live process in another PID namespace,
 * whose PID means nothing here) is refused by the kernel with EBUSY and kept. Where
 * {@code kprobe_events} does not exist (no kprobes, tracefs not mounted) this does nothing; where it
 * cannot be written (tracefs mounted read-only, as the DaemonSet mounts it) it reports what it left.
 */
public final class StaleKprobeEvents {
  /** {@code p:kprobes/p_vfs_read_bcc_1234 vfs_read}, {@code r16:grp/ev sym+0x10}, ... */
  private static final Pattern LINE = Pattern.compile("^([pr])(\\d*):([^/\\s]+)/(\\S+)\\s+(.*)$");
  /** The event names libbcc gives: its caller's {@code p_…}/{@code r_…} name, then {@code _bcc_<pid>}. */
  private static final Pattern LIBBCC = Pattern.compile("^[pr]_[A-Za-z0-9_.]*_bcc_(\\d{1,10})$");

  /** One line of {@code kprobe_events}. */
  public record Event(String group, String name, String target) {
    /** The removal command for this event. */
    public String removal() {
      return "-:" + group + "/" + name + "\n";
    }

    /** The PID in a libbcc event name, empty for any other name. */
    public Optional<Long> libbccPid() {
      Matcher m = LIBBCC.matcher(name);
      return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }
  }

  /**
   * What a sweep did.
   *
   * @param removed events removed
   * @param kept stale events left, each with why (in use, read-only tracefs, ...)
   */
  public record Result(List<Event> removed, List<String> kept) {
    public Result {
      removed = List.copyOf(removed);
      kept = List.copyOf(kept);
    }

    static Result nothing() {
      return new Result(List.of(), List.of());
    }
  }

  private StaleKprobeEvents() {}

  /** The events of a {@code kprobe_events} text; lines that are not events are skipped. */
  public static List<Event> parse(String text) {
    List<Event> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      Matcher m = LINE.matcher(line.strip());
      if (m.matches()) {
        out.add(new Event(m.group(3), m.group(4), m.group(5).strip()));
      }
    }
    return out;
  }

  /** The libbcc events whose PID {@code alive} says is gone. */
  public static List<Event> stale(List<Event> events, LongPredicate alive) {
    List<Event> out = new ArrayList<>();
    for (Event e : events) {
      Optional<Long> pid = e.libbccPid();
      if (pid.isPresent() && pid.get() > 0 && !alive.test(pid.get())) {
        out.add(e);
      }
    }
    return out;
  }

  /** Whether a process with this PID exists in this PID namespace (its /proc directory). */
  public static boolean processAlive(long pid) {
    return Files.exists(Path.of("/proc", Long.toString(pid)));
  }

  /**
   * Sweeps {@code <tracefs>/kprobe_events}: removes every stale libbcc event. Nothing happens when the
   * file does not exist.
   */
  public static Result sweep(Path tracefs, LongPredicate alive) {
    Path file = tracefs.resolve("kprobe_events");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      return Result.nothing();
    } catch (IOException | SecurityException e) {
      return new Result(List.of(), List.of("read " + file + ": " + e.getMessage()));
    }
    List<Event> stale = stale(parse(text), alive);
    List<Event> removed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    if (stale.isEmpty()) {
      return Result.nothing();
    }
    // APPEND and never TRUNCATE_EXISTING: opening kprobe_events with O_TRUNC removes every kprobe event
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      for (Event e : stale) {
        try {
          ch.write(ByteBuffer.wrap(e.removal().getBytes(StandardCharsets.ISO_8859_1)));
          removed.add(e);
        } catch (IOException x) {
          kept.add(e.group() + "/" + e.name() + ": " + x.getMessage());
        }
      }
    } catch (IOException | SecurityException | UnsupportedOperationException e) {
      for (Event s : stale) {
        kept.add(s.group() + "/" + s.name() + ": open " + file + " for writing: " + e.getMessage());
      }
    }
    return new Result(removed, kept);
  }
}
