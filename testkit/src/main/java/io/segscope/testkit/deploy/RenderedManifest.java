package io.segscope.testkit.deploy;

import io.segscope.lab.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * deploy/kubernetes as the cluster receives it: {@code kubectl kustomize deploy/kubernetes} where kubectl
 * is installed, else the same rendering done here for the only two kustomization fields the directory
 * uses ({@code resources}, {@code images}); any other field fails the rendering instead of being
 * ignored. {@link RenderedManifestTest} holds the two renderings equal where kubectl exists.
 */
public record RenderedManifest(List<Map<String, Object>> documents, String renderer) {
  public static final String DIR = "deploy/kubernetes";
  private static final Set<String> KNOWN = Set.of("apiVersion", "kind", "resources", "images");

  /** Renders {@link #DIR} with kubectl if it is on PATH, else {@link #renderHere}. */
  public static RenderedManifest render() {
    Optional<Path> kubectl = Tools.find("kubectl");
    return kubectl.isPresent() ? renderWithKubectl(kubectl.get()) : renderHere(RepoFiles.path(DIR));
  }

  public static RenderedManifest renderWithKubectl(Path kubectl) {
    List<String> cmd = List.of(kubectl.toString(), "kustomize", RepoFiles.path(DIR).toString());
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("run `" + String.join(" ", cmd) + "`: " + out.strip());
      }
      return new RenderedManifest(parse(out), "kubectl kustomize");
    } catch (IOException e) {
      throw new IllegalStateException("run `" + String.join(" ", cmd) + "`: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("run `" + String.join(" ", cmd) + "`: interrupted", e);
    }
  }

  /** The kustomization's resources in order, with its images set on every container that names them. */
  public static RenderedManifest renderHere(Path dir) {
    Map<String, Object> k = RepoFiles.yaml(dir.resolve("kustomization.yaml"));
    for (String field : k.keySet()) {
      if (!KNOWN.contains(field)) {
        throw new IllegalStateException("render " + dir + ": kustomization field '" + field
            + "' is not rendered here (only " + KNOWN + "): install kubectl");
      }
    }
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Object r : Tree.list(k, "resources")) {
      for (Object doc : RepoFiles.yamlDocuments(dir.resolve((String) r))) {
        docs.add(asMap(doc));
      }
    }
    List<Map<String, Object>> images = k.containsKey("images") ? Tree.maps(k, "images") : List.of();
    for (Map<String, Object> doc : docs) {
      Map<String, Object> spec =
          Tree.find(doc, "spec.template.spec") != null ? Tree.map(doc, "spec.template.spec") : null;
      if (spec == null) {
        continue;
      }
      for (String list : List.of("initContainers", "containers")) {
        if (!spec.containsKey(list)) {
          continue;
        }
        for (Map<String, Object> c : Tree.maps(spec, list)) {
          c.put("image", image(Tree.str(c, "image"), images));
        }
      }
    }
    return new RenderedManifest(docs, "rendered here (no kubectl)");
  }

  /** kustomize's image transformer for a reference without digest: name[:tag] -> newName:newTag. */
  public static String image(String ref, List<Map<String, Object>> images) {
    int colon = ref.lastIndexOf(':');
    boolean tagged = colon > ref.lastIndexOf('/');
    String name = tagged ? ref.substring(0, colon) : ref;
    String tag = tagged ? ref.substring(colon + 1) : null;
    for (Map<String, Object> i : images) {
      if (Tree.str(i, "name").equals(name)) {
        String newName = i.containsKey("newName") ? Tree.str(i, "newName") : name;
        String newTag = i.containsKey("newTag") ? String.valueOf(i.get("newTag")) : tag;
        return newTag == null ? newName : newName + ":" + newTag;
      }
    }
    return ref;
  }

  public static List<Map<String, Object>> parse(String yaml) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
      if (doc != null) {
        out.add(asMap(doc));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object doc) {
    if (!(doc instanceof Map)) {
      throw new IllegalStateException("a manifest document is not a mapping: " + doc);
    }
    return (Map<String, Object>) doc;
  }

  /** The one document of a kind. */
  public Map<String, Object> kind(String kind) {
    List<Map<String, Object>> found = documents.stream().filter(d -> kind.equals(d.get("kind"))).toList();
    if (found.size() != 1) {
      throw new IllegalStateException("the rendered manifest has " + found.size() + " " + kind + ", not one");
    }
    return found.get(0);
  }
}
