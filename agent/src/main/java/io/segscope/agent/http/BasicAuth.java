package io.segscope.agent.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * HTTP basic authentication against bcrypt hashes, as the exporter-toolkit does it: a user that does
 * not exist is checked against a hash of the same cost (no timing tells users apart), one bcrypt runs
 * at a time (it is built to be slow), and outcomes are cached by user, hash and password (a digest,
 * never the password itself) so a scraper pays the bcrypt cost once. Blocking: call it off the
 * event loop.
 */
final class BasicAuth {
  /** Outcomes remembered; the least recently used is forgotten first. */
  static final int CACHE_ENTRIES = 256;

  private final Map<String, String> users;
  private final String absentUserHash;
  private final Object bcrypt = new Object();
  private final Map<String, Boolean> cache = new LinkedHashMap<>(64, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > CACHE_ENTRIES;
    }
  };

  /** @param users user name to bcrypt hash (checked by {@link WebConfig}) */
  BasicAuth(Map<String, String> users) {
    this.users = Map.copyOf(users);
    int cost = users.values().stream().mapToInt(h -> Integer.parseInt(h.substring(4, 6))).max().orElse(4);
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    byte[] password = new byte[16];
    new SecureRandom().nextBytes(password);
    this.absentUserHash = OpenBSDBCrypt.generate("2y", password, salt, cost);
  }

  boolean enabled() {
    return !users.isEmpty();
  }

  /**
   * The verdict on {@code authorization} without running bcrypt: known when the header is malformed
   * (false) or its outcome is cached; empty when only {@link #allows} can tell. Cheap: fine on the
   * event loop, so a scraper whose credentials were checked once never waits behind bcrypt runs.
   */
  Optional<Boolean> known(String authorization) {
    Credentials c = Credentials.parse(authorization);
    if (c == null) {
      return Optional.of(false);
    }
    String hash = users.get(c.user);
    String key = digest(c.user, hash != null ? hash : absentUserHash, c.password);
    synchronized (cache) {
      return Optional.ofNullable(cache.get(key));
    }
  }

  /** A user name and password from a basic {@code Authorization} header. */
  private record Credentials(String user, byte[] password) {
    /** Null for null, another scheme, bad base64 or no colon. */
    static Credentials parse(String authorization) {
      if (authorization == null || authorization.length() < 6
          || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
        return null;
      }
      byte[] decoded;
      try {
        decoded = Base64.getDecoder().decode(authorization.substring(6).strip());
      } catch (IllegalArgumentException e) {
        return null;
      }
      for (int i = 0; i < decoded.length; i++) {
        if (decoded[i] == ':') {
          return new Credentials(new String(decoded, 0, i, StandardCharsets.UTF_8),
              Arrays.copyOfRange(decoded, i + 1, decoded.length));
        }
      }
      return null;
    }
  }

  /**
   * Whether an {@code Authorization} header names a user with the right password. Null, another
   * scheme, bad base64 or no colon: false. Blocking (bcrypt) unless the outcome is cached.
   */
  boolean allows(String authorization) {
    Credentials c = Credentials.parse(authorization);
    if (c == null) {
      return false;
    }
    String user = c.user();
    byte[] password = c.password();
    String hash = users.get(user);
    boolean known = hash != null;
    String checked = known ? hash : absentUserHash;
    String key = digest(user, checked, password);
    synchronized (cache) {
      Boolean cached = cache.get(key);
      if (cached != null) {
        return cached;
      }
    }
    boolean ok;
    synchronized (bcrypt) {
      try {
        ok = OpenBSDBCrypt.checkPassword(checked, password);
      } catch (IllegalArgumentException e) {
        ok = false; // a password bcrypt cannot take (e.g. empty)
      }
    }
    ok &= known;
    synchronized (cache) {
      cache.put(key, ok);
    }
    return ok;
  }

  private static String digest(String user, String hash, byte[] password) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(user.getBytes(StandardCharsets.UTF_8));
      d.update((byte) 0);
      d.update(hash.getBytes(StandardCharsets.US_ASCII));
      d.update((byte) 0);
      d.update(password);
      return Base64.getEncoder().encodeToString(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from the JVM", e);
    }
  }
}
