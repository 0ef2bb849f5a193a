package io.segscope.agent.http;

import static io.segscope.agent.http.WebConfigFields.bool;
import static io.segscope.agent.http.WebConfigFields.known;
import static io.segscope.agent.http.WebConfigFields.oneLine;
import static io.segscope.agent.http.WebConfigFields.str;
import static io.segscope.agent.http.WebConfigFields.strings;

import io.segscope.agent.http.WebConfig.ClientAuth;
import io.segscope.agent.http.WebConfig.Pem;
import io.segscope.agent.http.WebConfig.Tls;
import io.segscope.agent.http.WebConfig.WebConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code tls_server_config} section of a {@link WebConfig} file, with the exporter-toolkit's
 * fields, defaults (TLS 1.2 to 1.3) and checks: the certificate and key (inline or files), the
 * client-certificate policy and CA, the TLS versions and the cipher suites Go accepts.
 */
final class TlsServerConfig {
  private static final Set<String> TLS_FIELDS = Set.of("cert", "key", "client_ca", "cert_file", "key_file",
      "client_auth_type", "client_ca_file", "client_allowed_sans", "min_version", "max_version", "cipher_suites",
      "prefer_server_cipher_suites", "curve_preferences");
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
  private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN (RSA |EC )?PRIVATE KEY-----");

  /** Field names in messages start with the section's name. */
  private static final String PREFIX = "tls_server_config.";

  private TlsServerConfig() {}

  /**
   * The TLS settings of {@code t} (the {@code tls_server_config} mapping), empty when it names no
   * certificate, key, client CA or client-auth type; relative file names are read from {@code dir}.
   */
  static Optional<Tls> read(Map<String, Object> t, Path dir) throws WebConfigException {
    known(t, TLS_FIELDS, PREFIX);
    String cert = str(t, "cert", PREFIX);
    String key = str(t, "key", PREFIX);
    String clientCa = str(t, "client_ca", PREFIX);
    String certFile = str(t, "cert_file", PREFIX);
    String keyFile = str(t, "key_file", PREFIX);
    String clientCaFile = str(t, "client_ca_file", PREFIX);
    String clientAuthType = str(t, "client_auth_type", PREFIX);
    List<String> sans = strings(t, "client_allowed_sans", PREFIX);
    List<String> ciphers = strings(t, "cipher_suites", PREFIX);
    String min = t.containsKey("min_version") ? str(t, "min_version", PREFIX) : "TLS12";
    String max = t.containsKey("max_version") ? str(t, "max_version", PREFIX) : "TLS13";
    bool(t, "prefer_server_cipher_suites", PREFIX, true); // no effect, as in Go since 1.17: the JVM uses its order
    if (!strings(t, "curve_preferences", PREFIX).isEmpty()) {
      throw new WebConfigException(
          PREFIX + "curve_preferences: not supported by segscope (the JVM chooses the curves)");
    }
    boolean enabled = !(cert.isEmpty() && key.isEmpty() && clientCa.isEmpty() && certFile.isEmpty()
        && keyFile.isEmpty() && clientCaFile.isEmpty() && clientAuthType.isEmpty());
    if (!enabled) {
      if (!sans.isEmpty() || !ciphers.isEmpty() || t.containsKey("min_version") || t.containsKey("max_version")) {
        throw new WebConfigException(PREFIX + "TLS settings without a certificate: set cert_file and key_file");
      }
      return Optional.empty();
    }
    Pem certPem = pem(cert, certFile, "cert", dir);
    Pem keyPem = pem(key, keyFile, "key", dir);
    certificates(certPem);
    privateKey(keyPem);
    ClientAuth auth = ClientAuth.byName(clientAuthType).orElseThrow(() -> new WebConfigException(PREFIX
        + "client_auth_type: '" + clientAuthType + "' is not one of NoClientCert, RequestClientCert, "
        + "RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert"));
    Optional<Pem> ca = clientCa.isEmpty() && clientCaFile.isEmpty() ? Optional.empty()
        : Optional.of(pem(clientCa, clientCaFile, "client_ca", dir));
    clientCertificates(auth, ca, sans);
    List<String> protocols = protocols(min, max);
    for (String c : ciphers) {
      if (!GO_CIPHER_SUITES.contains(c)) {
        throw new WebConfigException(PREFIX + "cipher_suites: unknown cipher '" + c + "'");
      }
    }
    return Optional.of(new Tls(certPem, keyPem, auth, ca, sans, protocols, ciphers));
  }

  private static void privateKey(Pem keyPem) throws WebConfigException {
    if (!PRIVATE_KEY.matcher(new String(keyPem.bytes(), StandardCharsets.ISO_8859_1)).find()) {
      throw new WebConfigException(
          PREFIX + keyPem.origin() + ": no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY "
              + "or EC PRIVATE KEY; encrypted keys are not supported)");
    }
  }

  /** The client CA is a certificate, and the client-auth type, CA and allowed SANs fit together. */
  private static void clientCertificates(ClientAuth auth, Optional<Pem> ca, List<String> sans)
      throws WebConfigException {
    if (ca.isPresent()) {
      certificates(ca.get());
      if (auth == ClientAuth.NO_CLIENT_CERT) {
        throw new WebConfigException(PREFIX + "client_ca_file without a client_auth_type: set client_auth_type: "
            + "RequireAndVerifyClientCert");
      }
    }
    if (auth.verified() && ca.isEmpty()) {
      throw new WebConfigException(
          PREFIX + "client_auth_type " + auth.toolkitName() + " needs client_ca_file (segscope "
              + "does not verify client certificates against the system's CAs)");
    }
    if (!sans.isEmpty() && auth == ClientAuth.NO_CLIENT_CERT) {
      throw new WebConfigException(
          PREFIX + "client_allowed_sans without a client_auth_type that asks for certificates");
    }
  }

  /** The JVM names of the TLS versions from {@code min} to {@code max} (toolkit names). */
  private static List<String> protocols(String min, String max) throws WebConfigException {
    String minName = VERSIONS.get(min);
    String maxName = VERSIONS.get(max);
    if (minName == null) {
      throw new WebConfigException(
          PREFIX + "min_version: unknown TLS version '" + min + "' (TLS10, TLS11, TLS12, TLS13)");
    }
    if (maxName == null) {
      throw new WebConfigException(
          PREFIX + "max_version: unknown TLS version '" + max + "' (TLS10, TLS11, TLS12, TLS13)");
    }
    int lo = VERSION_ORDER.indexOf(min);
    int hi = VERSION_ORDER.indexOf(max);
    if (lo > hi) {
      throw new WebConfigException(PREFIX + "min_version " + min + " is above max_version " + max);
    }
    return VERSION_ORDER.subList(lo, hi + 1).stream().map(VERSIONS::get).toList();
  }

  /** Inline PEM or a file, not both, not neither. */
  private static Pem pem(String inline, String file, String field, Path dir) throws WebConfigException {
    if (!inline.isEmpty() && !file.isEmpty()) {
      throw new WebConfigException(PREFIX + field + " and " + field + "_file are both set: keep one");
    }
    if (!inline.isEmpty()) {
      return new Pem(PREFIX + field + " (inline)", inline.getBytes(StandardCharsets.UTF_8));
    }
    if (file.isEmpty()) {
      throw new WebConfigException(PREFIX + "missing one of " + field + " or " + field + "_file");
    }
    Path path = dir == null ? Path.of(file) : dir.resolve(file);
    return new Pem(PREFIX + field + "_file " + path, WebConfigFields.read(path, PREFIX + field + "_file"));
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
}
