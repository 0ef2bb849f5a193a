package io.segscope.testkit.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The repository's non-Java files (grafana/, deploy/, docs/) and parsers for them. */
public final class RepoFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RepoFiles() {}

  /** The repository root: the nearest ancestor of the working directory holding deploy/ and grafana/. */
  public static Path root() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("deploy")) && Files.isDirectory(p.resolve("grafana"))
          && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("find repository root: no ancestor of " + dir + " holds deploy/ and grafana/");
  }

  public static Path path(String relative) {
    Path p = root().resolve(relative);
    if (!Files.exists(p)) {
      throw new IllegalStateException("read " + relative + ": not found under " + root());
    }
    return p;
  }

  public static String text(String relative) {
    try {
      return Files.readString(path(relative));
    } catch (IOException e) {
      throw new UncheckedIOException("read " + relative + ": " + e.getMessage(), e);
    }
  }

  /** Files of a directory (not recursive) whose names end with the suffix, sorted. */
  public static List<Path> list(String relativeDir, String suffix) {
    try (Stream<Path> s = Files.list(path(relativeDir))) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("list " + relativeDir + ": " + e.getMessage(), e);
    }
  }

  public static JsonNode json(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("parse JSON " + file + ": " + e.getMessage(), e);
    }
  }

  /** Every document of a YAML file, with SnakeYAML's safe constructor (plain maps, lists, scalars). */
  public static List<Object> yamlDocuments(Path file) {
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    try {
      List<Object> docs = new ArrayList<>();
      for (Object d : yaml.loadAll(Files.readString(file))) {
        if (d != null) {
          docs.add(d);
        }
      }
      return docs;
    } catch (IOException e) {
      throw new UncheckedIOException("read YAML " + file + ": " + e.getMessage(), e);
    }
  }

  /** The single document of a YAML file, which must be a mapping. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> yaml(Path file) {
    List<Object> docs = yamlDocuments(file);
    if (docs.size() != 1 || !(docs.get(0) instanceof Map)) {
      throw new IllegalStateException("parse YAML " + file + ": expected one mapping document, got " + docs.size());
    }
    return (Map<String, Object>) docs.get(0);
  }

  public static Map<String, Object> yaml(String relative) {
    return yaml(path(relative));
  }
}
