package io.segscope.agent.http;

import io.segscope.agent.config.ConfigFile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * {@code --web.config.file}: the web configuration of the Prometheus exporter-toolkit (the file
 * node_exporter and Prometheus take): {@code tls_server_config}, {@code http_server_config} and
 * {@code basic_auth_users}, with the toolkit's field names, defaults and checks. Like the toolkit
 * it rejects unknown fields; unlike it, it also rejects the toolkit fields segscope cannot honour
 * ({@code curve_preferences}, {@code rate_limit}) rather than ignoring them. Relative file names are
 * read from the configuration file's directory. Everything is read once, at start.
 *
 * @param tls the TLS settings, empty for plain HTTP
 * @param users basic-auth users and their bcrypt hashes; empty: no authentication
 * @param http2 whether TLS connections may negotiate HTTP/2 (ALPN), default true
 * @param headers extra response headers (the toolkit's allowed set)
 */
public record WebConfig(Optional<Tls> tls, Map<String, String> users, boolean http2, Map<String, String> headers) {

  /** Larger configuration or PEM files are refused (they are a few kilobytes). */
  static final int MAX_FILE_BYTES = 1 << 20;

  private static final Set<String> TOP = Set.of("tls_server_config", "http_server_config", "basic_auth_users",
      "rate_limit");
  private static final Set<String> TLS_FIELDS = Set.of("cert", "key", "client_ca", "cert_file", "key_file",
      "client_auth_type", "client_ca_file", "client_allowed_sans", "min_version", "max_version", "cipher_suites",
      "prefer_server_cipher_suites", "curve_preferences");
  private static final Set<String> HTTP_FIELDS = Set.of("http2", "headers");
  /** The toolkit's configurable headers and, where it fixes them, their allowed values. */
  private static final Map<String, List<String>> HEADERS = Map.of(
      "Strict-Transport-Security", List.of(),
      "X-Content-Type-Options", List.of("nosniff"),
      "X-Frame-Options", List.of("deny", "sameorigin"),
      "X-XSS-Protection", List.of(),
      "Content-Security-Policy", List.of());
  /** TLS versions by their toolkit names, as the JVM names them. */
  private static final Map<String, String> VERSIONS = Map.of("TLS10", "TLSv1", "TLS11", "TLSv1.1",
      "TLS12", "TLSv1.2", "TLS13", "TLSv1.3");
  private static final List<String> VERSION_ORDER = List.of("TLS10", "TLS11", "TLS12", "TLS13");
  /**
   * The cipher suites the toolkit accepts (Go's {@code tls.CipherSuites()}); Go and the JVM both use
   * the IANA names. TLS 1.3 suites are listed by Go but not configurable there; here likewise.
   */
  private static final List<String> GO_CIPHER_SUITES = List.of(
      "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_GCM_SHA256",
      "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
      "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
      "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
      "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");
  /** A bcrypt hash: $2a$, $2b$ or $2y$, two-digit cost, 22 characters of salt and 31 of hash. */
  static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$(\\d\\d)\\$[./A-Za-z0-9]{53}");
  private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN (RSA |EC )?PRIVATE KEY-----");

  public WebConfig {
    users = Map.copyOf(users);
    headers = Map.copyOf(headers);
  }

  /** No file: plain HTTP, no authentication. */
  public static WebConfig none() {
    return new WebConfig(Optional.empty(), Map.of(), true, Map.of());
  }

  /** How a TLS server treats client certificates (the toolkit's {@code client_auth_type}). */
  public enum ClientAuth {
    /** No client certificate is asked for. */
    NO_CLIENT_CERT("NoClientCert", false, false),
    /** Asked for, not required, not verified (the toolkit calls this insecure). */
    REQUEST_CLIENT_CERT("RequestClientCert", false, false),
    /** Required, not verified (the toolkit calls this insecure). */
    REQUIRE_ANY_CLIENT_CERT("RequireAnyClientCert", true, false),
    /** Verified against the client CA when given. */
    VERIFY_CLIENT_CERT_IF_GIVEN("VerifyClientCertIfGiven", false, true),
    /** Required and verified against the client CA. */
    REQUIRE_AND_VERIFY_CLIENT_CERT("RequireAndVerifyClientCert", true, true);

    private final String toolkitName;
    private final boolean required;
    private final boolean verified;

    ClientAuth(String toolkitName, boolean required, boolean verified) {
      this.toolkitName = toolkitName;
      this.required = required;
      this.verified = verified;
    }

    public String toolkitName() {
      return toolkitName;
    }

    public boolean required() {
      return required;
    }

    public boolean verified() {
      return verified;
    }

    static Optional<ClientAuth> byName(String name) {
      if (name.isEmpty()) {
        return Optional.of(NO_CLIENT_CERT);
      }
      if (name.equals("RequireClientCert")) { // the toolkit keeps this old name
        return Optional.of(REQUIRE_ANY_CLIENT_CERT);
      }
      for (ClientAuth a : values()) {
        if (a.toolkitName.equals(name)) {
          return Optional.of(a);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * PEM text and where it came from.
   *
   * @param origin "cert_file /etc/x.crt" or "cert (inline)", for messages
   */
  public record Pem(String origin, byte[] bytes) {
    public Pem {
      bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
      return bytes.clone();
    }
  }

  /**
   * The TLS settings.
   *
   * @param cert the server's certificate chain
   * @param key its private key (PKCS#8, PKCS#1 RSA or SEC1 EC PEM)
   * @param clientAuth the client-certificate policy
   * @param clientCa the CAs client certificates are verified against
   * @param clientAllowedSans when not empty, a client certificate must carry one of these SANs
   * @param protocols the JVM names of the TLS versions from min_version to max_version
   * @param cipherSuites the TLS 1.2 (and older) suites to allow; empty: the JVM's defaults
   */
  public record Tls(Pem cert, Pem key, ClientAuth clientAuth, Optional<Pem> clientCa, List<String> clientAllowedSans,
      List<String> protocols, List<String> cipherSuites) {
    public Tls {
      clientAllowedSans = List.copyOf(clientAllowedSans);
      protocols = List.copyOf(protocols);
      cipherSuites = List.copyOf(cipherSuites);
    }
  }

  /**
   * Reads and checks the file and every file it names.
   *
   * @throws WebConfigException naming the field and what is wrong with it
   */
  public static WebConfig load(Path file) throws WebConfigException {
    byte[] bytes = read(file, "the file");
    Path dir = file.toAbsolutePath().getParent();
    return parse(utf8(bytes, "the file"), dir);
  }

  /** Parses YAML text; relative file names are read from {@code dir}. */
  static WebConfig parse(String yaml, Path dir) throws WebConfigException {
    Object doc;
    try {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      options.setMaxAliasesForCollections(10);
      options.setCodePointLimit(MAX_FILE_BYTES);
      options.setNestingDepthLimit(10);
      doc = new Yaml(new SafeConstructor(options)).load(yaml);
    } catch (MarkedYAMLException e) {
      throw new WebConfigException("not valid YAML: " + oneLine(e.getProblem())
          + (e.getProblemMark() == null ? "" : " (line " + (e.getProblemMark().getLine() + 1) + ", column "
              + (e.getProblemMark().getColumn() + 1) + ")"));
    } catch (YAMLException e) {
      throw new WebConfigException("not valid YAML: " + oneLine(e.getMessage()));
    }
    if (doc == null) {
      return none(); // an empty file, as the toolkit: plain HTTP without authentication
    }
    Map<String, Object> top = map(doc, "the file");
    known(top, TOP, "");
    if (top.containsKey("rate_limit")) {
      throw new WebConfigException("rate_limit: not supported by segscope (use --web.max-requests)");
    }
    Optional<Tls> tls = tls(map(top.get("tls_server_config"), "tls_server_config"), dir);
    Map<String, Object> http = map(top.get("http_server_config"), "http_server_config");
    known(http, HTTP_FIELDS, "http_server_config.");
    boolean http2 = bool(http, "http2", "http_server_config.", true);
    Map<String, String> headers = headers(map(http.get("headers"), "http_server_config.headers"));
    Map<String, String> users = users(map(top.get("basic_auth_users"), "basic_auth_users"));
    return new WebConfig(tls, users, http2, headers);
  }

  private static Optional<Tls> tls(Map<String, Object> t, Path dir) throws WebConfigException {
    known(t, TLS_FIELDS, "tls_server_config.");
    String p = "tls_server_config.";
    String cert = str(t, "cert", p);
    String key = str(t, "key", p);
    String clientCa = str(t, "client_ca", p);
    String certFile = str(t, "cert_file", p);
    String keyFile = str(t, "key_file", p);
    String clientCaFile = str(t, "client_ca_file", p);
    String clientAuthType = str(t, "client_auth_type", p);
    List<String> sans = strings(t, "client_allowed_sans", p);
    List<String> ciphers = strings(t, "cipher_suites", p);
    String min = t.containsKey("min_version") ? str(t, "min_version", p) : "TLS12";
    String max = t.containsKey("max_version") ? str(t, "max_version", p) : "TLS13";
    bool(t, "prefer_server_cipher_suites", p, true); // no effect, as in Go since 1.17: the JVM uses its order
    if (!strings(t, "curve_preferences", p).isEmpty()) {
      throw new WebConfigException(p + "curve_preferences: not supported by segscope (the JVM chooses the curves)");
    }
    boolean enabled = !(cert.isEmpty() && key.isEmpty() && clientCa.isEmpty() && certFile.isEmpty()
        && keyFile.isEmpty() && clientCaFile.isEmpty() && clientAuthType.isEmpty());
    if (!enabled) {
      if (!sans.isEmpty() || !ciphers.isEmpty() || t.containsKey("min_version") || t.containsKey("max_version")) {
        throw new WebConfigException(p + "TLS settings without a certificate: set cert_file and key_file");
      }
      return Optional.empty();
    }
    Pem certPem = pem(cert, certFile, "cert", dir);
    Pem keyPem = pem(key, keyFile, "key", dir);
    certificates(certPem);
    if (!PRIVATE_KEY.matcher(new String(keyPem.bytes(), StandardCharsets.ISO_8859_1)).find()) {
      throw new WebConfigException(p + keyPem.origin() + ": no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY "
          + "or EC PRIVATE KEY; encrypted keys are not supported)");
    }
    ClientAuth auth = ClientAuth.byName(clientAuthType).orElseThrow(() -> new WebConfigException(p
        + "client_auth_type: '" + clientAuthType + "' is not one of NoClientCert, RequestClientCert, "
        + "RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert"));
    Optional<Pem> ca = clientCa.isEmpty() && clientCaFile.isEmpty() ? Optional.empty()
        : Optional.of(pem(clientCa, clientCaFile, "client_ca", dir));
    if (ca.isPresent()) {
      certificates(ca.get());
      if (auth == ClientAuth.NO_CLIENT_CERT) {
        throw new WebConfigException(p + "client_ca_file without a client_auth_type: set client_auth_type: "
            + "RequireAndVerifyClientCert");
      }
    }
    if (auth.verified() && ca.isEmpty()) {
      throw new WebConfigException(p + "client_auth_type " + auth.toolkitName() + " needs client_ca_file (segscope "
          + "does not verify client certificates against the system's CAs)");
    }
    if (!sans.isEmpty() && auth == ClientAuth.NO_CLIENT_CERT) {
      throw new WebConfigException(p + "client_allowed_sans without a client_auth_type that asks for certificates");
    }
    String minName = VERSIONS.get(min);
    String maxName = VERSIONS.get(max);
    if (minName == null) {
      throw new WebConfigException(p + "min_version: unknown TLS version '" + min + "' (TLS10, TLS11, TLS12, TLS13)");
    }
    if (maxName == null) {
      throw new WebConfigException(p + "max_version: unknown TLS version '" + max + "' (TLS10, TLS11, TLS12, TLS13)");
    }
    int lo = VERSION_ORDER.indexOf(min);
    int hi = VERSION_ORDER.indexOf(max);
    if (lo > hi) {
      throw new WebConfigException(p + "min_version " + min + " is above max_version " + max);
    }
    List<String> protocols = VERSION_ORDER.subList(lo, hi + 1).stream().map(VERSIONS::get).toList();
    for (String c : ciphers) {
      if (!GO_CIPHER_SUITES.contains(c)) {
        throw new WebConfigException(p + "cipher_suites: unknown cipher '" + c + "'");
      }
    }
    return Optional.of(new Tls(certPem, keyPem, auth, ca, sans, protocols, ciphers));
  }

  /** Inline PEM or a file, not both, not neither. */
  private static Pem pem(String inline, String file, String field, Path dir) throws WebConfigException {
    String p = "tls_server_config.";
    if (!inline.isEmpty() && !file.isEmpty()) {
      throw new WebConfigException(p + field + " and " + field + "_file are both set: keep one");
    }
    if (!inline.isEmpty()) {
      return new Pem(p + field + " (inline)", inline.getBytes(StandardCharsets.UTF_8));
    }
    if (file.isEmpty()) {
      throw new WebConfigException(p + "missing one of " + field + " or " + field + "_file");
    }
    Path path = dir == null ? Path.of(file) : dir.resolve(file);
    return new Pem(p + field + "_file " + path, read(path, p + field + "_file"));
  }

  private static void certificates(Pem pem) throws WebConfigException {
    Collection<? extends Certificate> certs;
    try (InputStream in = new ByteArrayInputStream(pem.bytes())) {
      certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (CertificateException | IOException e) {
      throw new WebConfigException(pem.origin() + ": not a PEM certificate: " + oneLine(e.getMessage()));
    }
    if (certs.isEmpty()) {
      throw new WebConfigException(pem.origin() + ": no PEM certificate in it");
    }
  }

  private static Map<String, String> headers(Map<String, Object> h) throws WebConfigException {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : h.entrySet()) {
      List<String> allowed = HEADERS.get(e.getKey());
      if (allowed == null) {
        throw new WebConfigException("http_server_config.headers: header '" + e.getKey() + "' can not be configured "
            + "(" + String.join(", ", new TreeSet<>(HEADERS.keySet())) + ")");
      }
      String v = scalar(e.getValue(), "http_server_config.headers." + e.getKey());
      if (!allowed.isEmpty() && !allowed.contains(v)) {
        throw new WebConfigException("http_server_config.headers." + e.getKey() + ": '" + v + "' is not one of "
            + allowed);
      }
      if (v.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
        throw new WebConfigException("http_server_config.headers." + e.getKey() + ": control characters in the value");
      }
      if (!v.isEmpty()) { // blank: unset, as the toolkit
        out.put(e.getKey(), v);
      }
    }
    return out;
  }

  private static Map<String, String> users(Map<String, Object> u) throws WebConfigException {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : u.entrySet()) {
      String hash = scalar(e.getValue(), "basic_auth_users." + e.getKey());
      var m = BCRYPT.matcher(hash);
      if (!m.matches()) {
        throw new WebConfigException("basic_auth_users." + e.getKey() + ": not a bcrypt hash ($2y$10$ followed by 53 "
            + "characters; make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n')");
      }
      int cost = Integer.parseInt(m.group(1));
      if (cost < 4 || cost > 31) {
        throw new WebConfigException("basic_auth_users." + e.getKey() + ": bcrypt cost " + cost + " is outside 4..31");
      }
      out.put(e.getKey(), hash);
    }
    return out;
  }

  // ---- YAML helpers: every value is checked for its type, every key against the known ones

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o, String where) throws WebConfigException {
    if (o == null) {
      return Map.of();
    }
    if (!(o instanceof Map<?, ?> m)) {
      throw new WebConfigException(where + ": expected a mapping, got " + kind(o));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      Object k = e.getKey();
      if (k == null || k instanceof Map || k instanceof List) {
        throw new WebConfigException(where + ": keys must be strings, got " + kind(k));
      }
      out.put(String.valueOf(k), e.getValue());
    }
    return out;
  }

  private static void known(Map<String, Object> m, Set<String> fields, String prefix) throws WebConfigException {
    for (String k : m.keySet()) {
      if (!fields.contains(k)) {
        throw new WebConfigException(prefix + printable(k) + ": unknown field (known: "
            + String.join(", ", new TreeSet<>(fields)) + ")");
      }
    }
  }

  private static String str(Map<String, Object> m, String key, String prefix) throws WebConfigException {
    Object v = m.get(key);
    return v == null ? "" : scalar(v, prefix + key);
  }

  private static String scalar(Object v, String where) throws WebConfigException {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    throw new WebConfigException(where + ": expected a string, got " + kind(v));
  }

  private static List<String> strings(Map<String, Object> m, String key, String prefix) throws WebConfigException {
    Object v = m.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> l)) {
      throw new WebConfigException(prefix + key + ": expected a list, got " + kind(v));
    }
    List<String> out = new ArrayList<>();
    for (Object x : l) {
      out.add(scalar(x, prefix + key + "[]"));
    }
    return out;
  }

  private static boolean bool(Map<String, Object> m, String key, String prefix, boolean dflt)
      throws WebConfigException {
    Object v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!(v instanceof Boolean b)) {
      throw new WebConfigException(prefix + key + ": expected true or false, got " + kind(v));
    }
    return b;
  }

  private static String kind(Object o) {
    if (o == null) {
      return "nothing";
    }
    if (o instanceof Map) {
      return "a mapping";
    }
    if (o instanceof List) {
      return "a list";
    }
    return "'" + printable(String.valueOf(o)) + "'";
  }

  private static byte[] read(Path file, String what) throws WebConfigException {
    try {
      return ConfigFile.read(file, MAX_FILE_BYTES);
    } catch (ConfigFile.RefusedException e) {
      throw new WebConfigException(what + ": " + file + ": " + e.reason());
    } catch (IOException e) {
      throw new WebConfigException(what + ": read " + file + ": " + oneLine(String.valueOf(e.getMessage())));
    }
  }

  private static String utf8(byte[] bytes, String what) throws WebConfigException {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new WebConfigException(what + ": not UTF-8 text");
    }
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }

  /** Control characters of a key are shown escaped, so the one-line message stays one line. */
  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029) {
        b.append(String.format(Locale.ROOT, "\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }

  /** A web configuration that cannot be used: the message names the field and the problem. */
  public static final class WebConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public WebConfigException(String message) {
      super(message);
    }
  }
}
