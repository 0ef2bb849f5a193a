package io.segscope.bench.common;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads and writes the raw results of a run: one JSON document per part, CSV for sample series. */
public final class Results {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path dir;

  public Results(Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException("create results directory " + dir + ": " + e.getMessage(), e);
    }
  }

  public Path dir() {
    return dir;
  }

  public void write(String name, Object result) {
    Path f = dir.resolve(name + ".json");
    try {
      JSON.writeValue(f.toFile(), result);
    } catch (IOException e) {
      throw new IllegalStateException("write " + f + ": " + e.getMessage(), e);
    }
  }

  /** The part {@code name} of this run, or null when that part did not run (no file). */
  public <T> T read(String name, Class<T> type) {
    Path f = dir.resolve(name + ".json");
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try {
      return JSON.readValue(f.toFile(), type);
    } catch (IOException e) {
      throw new IllegalStateException("read " + f + ": " + e.getMessage(), e);
    }
  }

  /** Writes {@code rows} (the first is the header) as CSV; values containing a comma are quoted. */
  public void csv(String name, List<List<Object>> rows) {
    StringBuilder b = new StringBuilder();
    for (List<Object> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        String v = String.valueOf(row.get(i));
        b.append(i == 0 ? "" : ",").append(v.contains(",") ? "\"" + v.replace("\"", "\"\"") + "\"" : v);
      }
      b.append('\n');
    }
    Path f = dir.resolve(name + ".csv");
    try {
      Files.writeString(f, b);
    } catch (IOException e) {
      throw new IllegalStateException("write " + f + ": " + e.getMessage(), e);
    }
  }
}
