package io.segscope.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;

/** Basic auth against bcrypt hashes: the verdicts, the cache, the headers it refuses. */
class BasicAuthTest {
  static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  /** $2y$ as htpasswd -B writes, $2a$ as Go's x/crypto writes, $2b$ as OpenBSD. */
  static final Map<String, String> USERS = Map.of(
      "alice", OpenBSDBCrypt.generate("2y", "alice-pw".toCharArray(), SALT, 4),
      "bob", OpenBSDBCrypt.generate("2a", "bob-pw".toCharArray(), SALT, 4),
      "carol", OpenBSDBCrypt.generate("2b", "pässwörd".toCharArray(), SALT, 4));

  static String header(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void rightPasswordsPassWrongOnesAndUnknownUsersDoNot() {
    BasicAuth auth = new BasicAuth(USERS);
    assertThat(auth.enabled()).isTrue();
    assertThat(auth.allows(header("alice", "alice-pw"))).isTrue();
    assertThat(auth.allows(header("bob", "bob-pw"))).isTrue();
    assertThat(auth.allows(header("carol", "pässwörd"))).as("UTF-8 password").isTrue();
    assertThat(auth.allows(header("alice", "bob-pw"))).isFalse();
    assertThat(auth.allows(header("alice", ""))).isFalse();
    assertThat(auth.allows(header("mallory", "alice-pw"))).isFalse();
    assertThat(auth.allows(header("alice", "alice-pw:extra"))).as("the password is all after the first colon")
        .isFalse();
    assertThat(auth.allows("basic " + header("alice", "alice-pw").substring(6))).as("scheme case-insensitive").isTrue();
  }

  @Test
  void malformedHeadersAreRefusedWithoutBcrypt() {
    BasicAuth auth = new BasicAuth(USERS);
    for (String h : new String[] {null, "", "Basic", "Basic ", "Bearer abc", "Basic !!!", "Basic "
        + Base64.getEncoder().encodeToString("no-colon".getBytes(StandardCharsets.UTF_8))}) {
      assertThat(auth.known(h)).as("%s", h).isEqualTo(Optional.of(false));
      assertThat(auth.allows(h)).as("%s", h).isFalse();
    }
  }

  @Test
  void outcomesAreCachedSoOnlyTheFirstCheckRunsBcrypt() {
    BasicAuth auth = new BasicAuth(USERS);
    String right = header("alice", "alice-pw");
    String wrong = header("alice", "guess");
    String nobody = header("nobody", "guess");
    assertThat(auth.known(right)).isEmpty();
    assertThat(auth.allows(right)).isTrue();
    assertThat(auth.known(right)).isEqualTo(Optional.of(true));
    assertThat(auth.allows(wrong)).isFalse();
    assertThat(auth.known(wrong)).isEqualTo(Optional.of(false));
    assertThat(auth.allows(nobody)).isFalse();
    assertThat(auth.known(nobody)).isEqualTo(Optional.of(false));
  }

  @Test
  void theCacheIsBounded() {
    BasicAuth auth = new BasicAuth(USERS);
    String first = header("alice", "guess-0");
    auth.allows(first);
    for (int i = 1; i <= BasicAuth.CACHE_ENTRIES; i++) {
      auth.allows(header("alice", "guess-" + i));
    }
    assertThat(auth.known(first)).as("the oldest outcome is forgotten").isEmpty();
  }

  @Test
  void noUsersMeansNoAuthentication() {
    assertThat(new BasicAuth(Map.of()).enabled()).isFalse();
  }
}
