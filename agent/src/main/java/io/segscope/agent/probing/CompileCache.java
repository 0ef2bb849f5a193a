package io.segscope.agent.probing;

import io.segscope.probes.Compiler;
import io.segscope.probes.ProbeException;
import io.segscope.probes.compile.CompiledObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A {@link Compiler} that keeps what another compiler made in a directory, so that a restart with the
 * same program text, clang flags, libbcc and agent build loads the programs without starting the
 * compiler child (about 1.5 s on a quiet host, most of a minute on a slow one).
 *
 * <p>An entry is named by the SHA-256 of everything that decides the compiler's output: the program
 * name and text (which carries the kernel's call-site addresses, so a new boot with another KASLR
 * offset is another entry), the flags (which carry the kernel's struct offsets), and the
 * {@linkplain #salt salt}: libbcc version, agent version and jar, kernel release. The entry repeats
 * the key and ends with a SHA-256 of its own bytes: an entry that is truncated, corrupt or belongs to
 * another key is compiled again with one warning and replaced. Entries are written to a temporary file
 * and renamed into place (never half-written), readable and writable only by the agent's user; at most
 * {@link #KEEP} are kept (least recently used go first).
 *
 * <p>What the agent loads into the kernel from here is bytecode: a directory someone else can write
 * would let them choose it. The directory is therefore used only when it is a real directory (no
 * symbolic link) owned by the agent's user and writable by nobody else, and an entry only when it is a
 * regular file of the agent's user that nobody else can write; otherwise the cache is bypassed with a
 * warning (docs/security.md).
 */
public final class CompileCache implements Compiler {
  private static final Logger LOG = Logger.getLogger(CompileCache.class.getName());
  private static final byte[] MAGIC = "segscope compiled object cache 1\n".getBytes(StandardCharsets.US_ASCII);
  static final String SUFFIX = ".bpfobj";
  /** Entries kept (a few boots' worth of kernels and plans). */
  static final int KEEP = 8;
  private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

  private final Path dir;
  private final String salt;
  private final Compiler compiler;
  private boolean warnedStore;

  /**
   * @param dir where the entries live (created, mode 0700, when missing)
   * @param salt what else decides the compiler's output besides text and flags ({@link #salt})
   * @param compiler the compiler asked on a miss
   */
  public CompileCache(Path dir, String salt, Compiler compiler) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.salt = Objects.requireNonNull(salt, "salt");
    this.compiler = Objects.requireNonNull(compiler, "compiler");
  }

  /**
   * The salt of this process: libbcc version, agent version, the jar's size and modification time (a
   * rebuilt jar is another agent), the kernel release and its headers' directory (what BCC includes).
   */
  public static String salt(String libbccVersion, String agentVersion) {
    StringBuilder s = new StringBuilder();
    s.append("libbcc=").append(libbccVersion).append('\n');
    s.append("agent=").append(agentVersion).append('\n');
    try {
      Path jar = Path.of(CompileCache.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      s.append("jar=").append(Files.size(jar)).append('@').append(Files.getLastModifiedTime(jar).toMillis())
          .append('\n');
    } catch (Exception e) {
      s.append("jar=unknown\n");
    }
    String release = System.getProperty("os.version", "");
    s.append("kernel=").append(release).append('\n');
    Path headers = Path.of("/lib/modules", release, "build");
    try {
      s.append("headers=").append(headers.toRealPath()).append('@')
          .append(Files.getLastModifiedTime(headers).toMillis()).append('\n');
    } catch (IOException | RuntimeException e) {
      s.append("headers=none\n");
    }
    return s.toString();
  }

  /** The directory the entries live in. */
  public Path dir() {
    return dir;
  }

  @Override
  public CompiledObject compile(String name, String text, List<String> cflags)
      throws ProbeException, InterruptedException {
    byte[] key = key(name, text, cflags);
    String hex = HexFormat.of().formatHex(key);
    Path entry = dir.resolve(hex + SUFFIX);
    if (LOG.isLoggable(Level.FINE)) {
      LOG.fine("compile cache key " + hex + " of salt " + shortHash(salt) + ", text " + shortHash(text)
          + ", flags " + shortHash(String.join("\n", commuting(cflags))) + " (" + salt.replace('\n', ' ').strip()
          + ")");
    }
    Optional<String> unusable = usableDirectory(false);
    if (unusable.isPresent()) {
      LOG.warning("compile cache " + dir + ": " + unusable.get() + "; compiling without it");
      return compiler.compile(name, text, cflags);
    }
    if (Files.exists(entry, LinkOption.NOFOLLOW_LINKS)) {
      try {
        CompiledObject cached = read(entry, key);
        touch(entry);
        LOG.info("probe programs from the compile cache (" + entry + "): same text, flags, libbcc and agent");
        return cached;
      } catch (IOException e) {
        LOG.warning("compile cache entry " + entry + " is unusable (" + e.getMessage() + "): compiling again");
        deleteQuietly(entry);
      }
    }
    CompiledObject compiled = compiler.compile(name, text, cflags);
    store(entry, key, compiled);
    return compiled;
  }

  /** SHA-256 over the name, text, flags and salt, each length-prefixed (no two inputs collide by concatenation). */
  byte[] key(String name, String text, List<String> cflags) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(b);
      for (String s : fields(name, text, cflags)) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
      }
      out.flush();
      return d.digest(b.toByteArray());
    } catch (NoSuchAlgorithmException | IOException e) {
      throw new IllegalStateException("hash the compile request: " + e.getMessage(), e);
    }
  }

  private List<String> fields(String name, String text, List<String> cflags) {
    List<String> flags = commuting(cflags);
    List<String> f = new ArrayList<>(List.of(salt, name, text, Integer.toString(flags.size())));
    f.addAll(flags);
    return f;
  }

  /**
   * The flags in an order that does not change their meaning: macro definitions of distinct names
   * commute, and the kernel layout's come from a map whose order changes from one JVM to the next, so
   * they are sorted; any other flag (or a macro defined twice) keeps the order as given.
   */
  static List<String> commuting(List<String> cflags) {
    Set<String> names = new HashSet<>();
    for (String f : cflags) {
      if (!f.startsWith("-D") || !names.add(f.substring(2).split("=", 2)[0])) {
        return cflags;
      }
    }
    return cflags.stream().sorted().toList();
  }

  /** Why the directory cannot be used (creating it when missing and {@code create}), empty when it can. */
  Optional<String> usableDirectory(boolean create) {
    try {
      if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        if (!create) {
          return Optional.empty(); // nothing to read yet; the first store creates it
        }
        Files.createDirectories(dir.getParent() == null ? dir : dir.getParent());
        try {
          Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
        } catch (FileAlreadyExistsException e) {
          // made by a concurrent start: judged below like any other
        }
        Files.setPosixFilePermissions(dir, DIR_MODE); // the umask may have taken bits away, never added
      }
      if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of("not a directory (or a symbolic link)");
      }
      return safe(dir, "directory");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Optional.of("cannot be used: " + e);
    }
  }

  /** Why {@code p} may have been written by someone else, empty when only the agent's user can. */
  private static Optional<String> safe(Path p, String what) throws IOException {
    Object owner = Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int me = ownUid();
    if (me >= 0 && ((Number) owner).intValue() != me) {
      return Optional.of(what + " owned by uid " + owner + ", not the agent's uid " + me);
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
    if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
      return Optional.of(what + " writable by group or others (mode "
          + PosixFilePermissions.toString(perms) + ")");
    }
    return Optional.empty();
  }

  /** The agent's effective uid, from /proc/self (owner of the process' own directory); -1 if unknown. */
  private static int ownUid() {
    try {
      return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return -1;
    }
  }

  private CompiledObject read(Path entry, byte[] key) throws IOException {
    if (!Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("not a regular file");
    }
    Optional<String> unsafe = safe(entry, "entry");
    if (unsafe.isPresent()) {
      throw new IOException(unsafe.get());
    }
    byte[] all = Files.readAllBytes(entry);
    int min = MAGIC.length + key.length + 32;
    if (all.length < min) {
      throw new IOException("truncated: " + all.length + " bytes");
    }
    if (!Arrays.equals(all, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new IOException("not a segscope cache entry (bad header)");
    }
    byte[] body = Arrays.copyOfRange(all, 0, all.length - 32);
    byte[] sum = Arrays.copyOfRange(all, all.length - 32, all.length);
    if (!Arrays.equals(sha256(body), sum)) {
      throw new IOException("checksum mismatch (corrupt)");
    }
    if (!Arrays.equals(all, MAGIC.length, MAGIC.length + key.length, key, 0, key.length)) {
      throw new IOException("made for another compile request (key mismatch)");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body, MAGIC.length + key.length,
        body.length - MAGIC.length - key.length))) {
      CompiledObject o = CompiledObject.readFrom(in);
      if (in.available() != 0) {
        throw new IOException(in.available() + " bytes after the compiled object");
      }
      return o;
    }
  }

  private void store(Path entry, byte[] key, CompiledObject compiled) {
    Path tmp = null;
    try {
      Optional<String> unusable = usableDirectory(true);
      if (unusable.isPresent()) {
        throw new IOException(unusable.get());
      }
      ByteArrayOutputStream b = new ByteArrayOutputStream(1 << 16);
      b.write(MAGIC);
      b.write(key);
      compiled.writeTo(new DataOutputStream(b));
      byte[] body = b.toByteArray();
      tmp = Files.createTempFile(dir, ".entry-", ".tmp", PosixFilePermissions.asFileAttribute(FILE_MODE));
      try (var ch = Files.newByteChannel(tmp, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap(body));
        ch.write(ByteBuffer.wrap(sha256(body)));
      }
      Files.move(tmp, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      tmp = null;
      prune();
    } catch (IOException | RuntimeException e) {
      if (!warnedStore) {
        warnedStore = true;
        LOG.warning("store the compiled programs in the compile cache " + dir + ": " + e.getMessage()
            + "; the next start compiles again (--cache-dir, docs/runbook.md)");
      }
    } finally {
      if (tmp != null) {
        deleteQuietly(tmp);
      }
    }
  }

  /** Keeps the {@link #KEEP} most recently used entries and removes leftovers of interrupted writes. */
  private void prune() throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        String n = p.getFileName().toString();
        if (n.endsWith(SUFFIX)) {
          entries.add(p);
        } else if (n.startsWith(".entry-") && n.endsWith(".tmp") && olderThanAMinute(p)) {
          deleteQuietly(p);
        }
      }
    }
    if (entries.size() <= KEEP) {
      return;
    }
    entries.sort((a, b) -> mtime(b).compareTo(mtime(a)));
    entries.subList(KEEP, entries.size()).forEach(CompileCache::deleteQuietly);
  }

  private static boolean olderThanAMinute(Path p) {
    return mtime(p).toMillis() < System.currentTimeMillis() - 60_000;
  }

  private static FileTime mtime(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  private static void touch(Path p) {
    try {
      Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // a read-only cache still serves; only the pruning order suffers
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.fine("delete " + p + ": " + e.getMessage());
    }
  }

  private static String shortHash(String s) {
    return HexFormat.of().formatHex(sha256(s.getBytes(StandardCharsets.UTF_8)), 0, 6);
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
