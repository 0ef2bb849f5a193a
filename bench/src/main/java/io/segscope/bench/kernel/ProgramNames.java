package io.segscope.bench.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.segscope.lab.Tools;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names the programs a process holds: the kernel keeps 15 characters of a program's name
 * ({@code BPF_OBJ_NAME_LEN}), which {@code bpftool -j prog show} lists by id; the agent's programs are
 * matched to the full C function names it reports ({@code program} label of {@code segscope_probe_attached}).
 */
public final class ProgramNames {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ProgramNames() {}

  /** Every loaded program's kernel name, by id. */
  public static Map<Integer, String> kernelNames() {
    return parse(Exec.run(List.of(Tools.require("bpftool"), "-j", "prog", "show")));
  }

  static Map<Integer, String> parse(String json) {
    Map<Integer, String> out = new HashMap<>();
    try {
      JsonNode root = JSON.readTree(json);
      if (root == null || !root.isArray()) {
        throw new IllegalArgumentException("parse bpftool prog show: not a JSON array");
      }
      for (JsonNode n : root) {
        out.put(n.path("id").asInt(-1), n.path("name").asText(""));
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("parse bpftool prog show: " + e.getMessage(), e);
    }
    return out;
  }

  /** The name the kernel keeps of {@code function}: its first 15 characters. */
  static String kernelName(String function) {
    return function.length() <= 15 ? function : function.substring(0, 15);
  }

  /**
   * {@code functions} → the process's program running it: each program of {@code held} whose kernel
   * name is the truncation of exactly one function. Functions without a loaded program are left out.
   */
  public static Map<String, BpfFdinfo.Program> match(Collection<String> functions, List<BpfFdinfo.Program> held,
      Map<Integer, String> kernelNames) {
    Map<String, String> byKernelName = new HashMap<>();
    for (String f : functions) {
      String previous = byKernelName.put(kernelName(f), f);
      if (previous != null && !previous.equals(f)) {
        throw new IllegalArgumentException("name programs: " + previous + " and " + f + " share the kernel name "
            + kernelName(f));
      }
    }
    Map<String, BpfFdinfo.Program> out = new LinkedHashMap<>();
    for (BpfFdinfo.Program p : held) {
      String f = byKernelName.get(kernelNames.getOrDefault(p.id(), ""));
      if (f != null) {
        out.put(f, p);
      }
    }
    return out;
  }
}
