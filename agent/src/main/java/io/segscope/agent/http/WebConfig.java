package io.segscope.agent.http;

import static io.segscope.agent.http.WebConfigFields.bool;
import static io.segscope.agent.http.WebConfigFields.known;
import static io.segscope.agent.http.WebConfigFields.map;
import static io.segscope.agent.http.WebConfigFields.oneLine;
import static io.segscope.agent.http.WebConfigFields.read;
import static io.segscope.agent.http.WebConfigFields.scalar;
import static io.segscope.agent.http.WebConfigFields.utf8;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
  private static final Set<String> HTTP_FIELDS = Set.of("http2", "headers");
  /** The toolkit's configurable headers and, where it fixes them, their allowed values. */
  private static final Map<String, List<String>> HEADERS = Map.of(
      "Strict-Transport-Security", List.of(),
      "X-Content-Type-Options", List.of("nosniff"),
      "X-Frame-Options", List.of("deny", "sameorigin"),
      "X-XSS-Protection", List.of(),
      "Content-Security-Policy", List.of());
  /** A bcrypt hash: $2a$, $2b$ or $2y$, two-digit cost, 22 characters of salt and 31 of hash. */
  static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$(\\d\\d)\\$[./A-Za-z0-9]{53}");

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
    Optional<Tls> tls = TlsServerConfig.read(map(top.get("tls_server_config"), "tls_server_config"), dir);
    Map<String, Object> http = map(top.get("http_server_config"), "http_server_config");
    known(http, HTTP_FIELDS, "http_server_config.");
    boolean http2 = bool(http, "http2", "http_server_config.", true);
    Map<String, String> headers = headers(map(http.get("headers"), "http_server_config.headers"));
    Map<String, String> users = users(map(top.get("basic_auth_users"), "basic_auth_users"));
    return new WebConfig(tls, users, http2, headers);
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

  /** A web configuration that cannot be used: the message names the field and the problem. */
  public static final class WebConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public WebConfigException(String message) {
      super(message);
    }
  }
}
