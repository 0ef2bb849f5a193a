package io.segscope.lab.containerd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The pod sandbox ("pause") image the containerd lab imports, built here because no registry is
 * reachable: an OCI image layout (one uncompressed layer holding the static busybox of Debian's
 * busybox-static, an entrypoint that sleeps) packed as a tar for {@code ctr images import}.
 */
final class PauseImage {
  /** The image name containerd's CRI plugin is told to use as sandbox_image. */
  static final String NAME = "segscope.invalid/lab-pause:1";
  static final Path BUSYBOX = Path.of("/bin/busybox");

  private static final ObjectMapper JSON = new ObjectMapper();

  private PauseImage() {}

  /** Builds the image tar under {@code dir} and returns its path. */
  static Path build(Path dir) throws IOException, InterruptedException {
    Path rootfs = Files.createDirectories(dir.resolve("rootfs/bin"));
    Files.copy(BUSYBOX, rootfs.resolve("busybox"));
    Path blobs = Files.createDirectories(dir.resolve("layout/blobs/sha256"));
    Path layer = dir.resolve("layer.tar");
    run(List.of("tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-C",
        dir.resolve("rootfs").toString(), "-cf", layer.toString(), "."));
    String layerDigest = blob(blobs, Files.readAllBytes(layer));

    ObjectNode config = JSON.createObjectNode().put("architecture", "amd64").put("os", "linux");
    // the pause process: sleeps until containerd kills it (StopPodSandbox sends SIGKILL)
    config.putObject("config").putArray("Entrypoint").add("/bin/busybox").add("sleep").add("2147483647");
    config.putObject("rootfs").put("type", "layers").putArray("diff_ids").add("sha256:" + layerDigest);
    byte[] configBytes = JSON.writeValueAsBytes(config);
    String configDigest = blob(blobs, configBytes);

    ObjectNode manifest = JSON.createObjectNode().put("schemaVersion", 2)
        .put("mediaType", "application/vnd.oci.image.manifest.v1+json");
    manifest.putObject("config").put("mediaType", "application/vnd.oci.image.config.v1+json")
        .put("digest", "sha256:" + configDigest).put("size", configBytes.length);
    manifest.putArray("layers").addObject().put("mediaType", "application/vnd.oci.image.layer.v1.tar")
        .put("digest", "sha256:" + layerDigest).put("size", Files.size(layer));
    byte[] manifestBytes = JSON.writeValueAsBytes(manifest);
    String manifestDigest = blob(blobs, manifestBytes);

    ObjectNode index = JSON.createObjectNode().put("schemaVersion", 2);
    ObjectNode entry = index.putArray("manifests").addObject()
        .put("mediaType", "application/vnd.oci.image.manifest.v1+json")
        .put("digest", "sha256:" + manifestDigest).put("size", manifestBytes.length);
    entry.putObject("platform").put("architecture", "amd64").put("os", "linux");
    entry.putObject("annotations").put("io.containerd.image.name", NAME)
        .put("org.opencontainers.image.ref.name", "1");
    Files.write(dir.resolve("layout/index.json"), JSON.writeValueAsBytes(index));
    Files.writeString(dir.resolve("layout/oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    Path tar = dir.resolve("pause.tar");
    run(List.of("tar", "-C", dir.resolve("layout").toString(), "-cf", tar.toString(), "."));
    return tar;
  }

  private static String blob(Path blobs, byte[] content) throws IOException {
    String digest;
    try {
      digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Files.write(blobs.resolve(digest), content);
    return digest;
  }

  static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("run `" + String.join(" ", cmd) + "`: no exit within 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException("run `" + String.join(" ", cmd) + "`: exit " + p.exitValue() + ": " + out.strip());
    }
  }
}
