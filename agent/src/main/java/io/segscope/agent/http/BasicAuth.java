package io.segscope.agent.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
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
   * Whether an {@code Authorization} header names a user with the right password. Null, another
   * scheme, bad base64 or no colon: false.
   */
  boolean allows(String authorization) {
    if (authorization == null || authorization.length() < 6
        || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      return false;
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(authorization.substring(6).strip());
    } catch (IllegalArgumentException e) {
      return false;
    }
    int colon = -1;
    for (int i = 0; i < decoded.length; i++) {
      if (decoded[i] == ':') {
        colon = i;
        break;
      }
    }
    if (colon < 0) {
      return false;
    }
    String user = new String(decoded, 0, colon, StandardCharsets.UTF_8);
    byte[] password = java.util.Arrays.copyOfRange(decoded, colon + 1, decoded.length);
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
