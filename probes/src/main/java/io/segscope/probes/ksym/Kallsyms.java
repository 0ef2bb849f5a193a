package io.segscope.probes.ksym;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Kernel text symbols from {@code /proc/kallsyms}, sorted by address, so that a symbol's address range
 * (its start up to the next symbol) can be resolved. Used to recognise return addresses that
 * tracepoints report (e.g. {@code skb:consume_skb}'s {@code location}) and to find renamed clones
 * such as {@code validate_xmit_skb.isra.0} or inlined functions (absent).
 */
public final class Kallsyms {

  /** One text symbol and the end of its range (the next symbol's address). */
  public record Symbol(String name, long start, long end, char type, String module) {
    public boolean contains(long address) {
      return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
    }
  }

  private final Symbol[] byAddress;

  private Kallsyms(Symbol[] byAddress) {
    this.byAddress = byAddress;
  }

  public static Kallsyms load() throws KallsymsException {
    return load(Path.of("/proc/kallsyms"));
  }

  public static Kallsyms load(Path file) throws KallsymsException {
    try {
      return parse(Files.readAllLines(file), file.toString());
    } catch (IOException e) {
      throw new KallsymsException("read " + file + ": " + e.getMessage(), e);
    }
  }

  /** Parses kallsyms lines ("address type name [module]"). */
  public static Kallsyms parse(List<String> lines, String source) throws KallsymsException {
    List<long[]> addr = new ArrayList<>(lines.size());
    List<String[]> rest = new ArrayList<>(lines.size());
    boolean anyNonZero = false;
    int lineNo = 0;
    for (String line : lines) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      String[] p = line.trim().split("\\s+");
      if (p.length < 3 || p[1].length() != 1) {
        throw new KallsymsException("parse " + source + ": line " + lineNo + " is not 'address type name': " + line);
      }
      long a;
      try {
        a = Long.parseUnsignedLong(p[0], 16);
      } catch (NumberFormatException e) {
        throw new KallsymsException("parse " + source + ": line " + lineNo + " has a bad address: " + p[0], e);
      }
      anyNonZero |= a != 0;
      addr.add(new long[] {a});
      String module = p.length > 3 ? p[3].replaceAll("^\\[|\\]$", "") : "";
      rest.add(new String[] {p[2], p[1], module});
    }
    if (!addr.isEmpty() && !anyNonZero) {
      throw new KallsymsException("read " + source
          + ": every address is 0 (kernel.kptr_restrict hides them: run as root with CAP_SYSLOG, "
          + "or set kernel.kptr_restrict=1)");
    }
    Integer[] order = new Integer[addr.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (x, y) -> Long.compareUnsigned(addr.get(x)[0], addr.get(y)[0]));
    Symbol[] syms = new Symbol[order.length];
    for (int i = 0; i < order.length; i++) {
      int k = order[i];
      long start = addr.get(k)[0];
      long end = start;
      for (int j = i + 1; j < order.length; j++) {
        long next = addr.get(order[j])[0];
        if (Long.compareUnsigned(next, start) > 0) {
          end = next;
          break;
        }
      }
      String[] r = rest.get(k);
      syms[i] = new Symbol(r[0], start, end, r[1].charAt(0), r[2]);
    }
    return new Kallsyms(syms);
  }

  /** Text symbols (types t/T) of the core kernel whose name matches. */
  public List<Symbol> text(Predicate<String> name) {
    List<Symbol> out = new ArrayList<>();
    for (Symbol s : byAddress) {
      char t = Character.toLowerCase(s.type());
      if (t == 't' && s.module().isEmpty() && name.test(s.name()) && s.end() != s.start()) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * A function and its compiler-renamed clones ({@code name}, {@code name.isra.0},
   * {@code name.constprop.0}, {@code name.part.0}, ...), but not other functions sharing the prefix.
   */
  public List<Symbol> functionAndClones(String function) {
    return text(n -> n.equals(function) || n.startsWith(function + "."));
  }

  /**
   * The same, in the core kernel or in a loaded module ({@code tbf_enqueue [sch_tbf]}): where code runs,
   * as opposed to what a kprobe or fentry program can attach to by name.
   */
  public List<Symbol> codeOf(String function) {
    List<Symbol> out = new ArrayList<>();
    for (Symbol s : byAddress) {
      char t = Character.toLowerCase(s.type());
      String n = s.name();
      if (t == 't' && s.end() != s.start() && (n.equals(function) || n.startsWith(function + "."))) {
        out.add(s);
      }
    }
    return out;
  }

  /** The symbol whose range holds {@code address}, if any. */
  public Optional<Symbol> at(long address) {
    int lo = 0;
    int hi = byAddress.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(byAddress[mid].start(), address) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return hi >= 0 && byAddress[hi].contains(address) ? Optional.of(byAddress[hi])
        : Optional.empty();
  }

  /** The address of the core-kernel symbol {@code name} of any type ({@code _stext}, {@code _etext}), if listed. */
  public OptionalLong address(String name) {
    for (Symbol s : byAddress) {
      if (s.module().isEmpty() && s.name().equals(name)) {
        return OptionalLong.of(s.start());
      }
    }
    return OptionalLong.empty();
  }

  public boolean hasFunction(String name) {
    return !text(name::equals).isEmpty();
  }

  public int size() {
    return byAddress.length;
  }
}
