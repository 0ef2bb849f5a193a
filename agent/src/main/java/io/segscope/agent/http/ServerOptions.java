package io.segscope.agent.http;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.TrustOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/** The Vert.x server options for {@link HttpSettings}: limits, timeouts, HTTP/2, TLS. */
final class ServerOptions {
  /** The JVM's TLS 1.3 suites, kept when cipher_suites narrows TLS 1.2 (as Go, which ignores it for 1.3). */
  private static final List<String> TLS13_SUITES = List.of("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256",
      "TLS_CHACHA20_POLY1305_SHA256");
  static final int MAX_INITIAL_LINE = 4096;
  static final int MAX_HEADER_BYTES = 8192;

  private ServerOptions() {}

  static HttpServerOptions of(HttpSettings s) {
    HttpServerOptions o = new HttpServerOptions()
        .setHost(s.host())
        .setPort(s.port())
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
        .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, s.idleTimeout().toMillis()))
        .setHttp2ClearTextEnabled(s.h2c() && s.web().tls().isEmpty())
        .setCompressionSupported(false) // gzip bodies are cached, not compressed per response
        .setDecompressionSupported(false)
        .setHandle100ContinueAutomatically(false)
        .setMaxInitialLineLength(MAX_INITIAL_LINE)
        .setMaxHeaderSize(MAX_HEADER_BYTES)
        .setTcpNoDelay(true);
    s.web().tls().ifPresent(t -> tls(o, t, s));
    return o;
  }

  private static void tls(HttpServerOptions o, WebConfig.Tls t, HttpSettings s) {
    o.setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(t.cert().bytes()))
            .setKeyValue(Buffer.buffer(t.key().bytes())))
        .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
        .setSslHandshakeTimeout(s.readHeaderTimeout().toMillis())
        .setEnabledSecureTransportProtocols(new HashSet<>(t.protocols()))
        .setUseAlpn(true)
        .setAlpnVersions(s.web().http2() ? List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1)
            : List.of(HttpVersion.HTTP_1_1));
    if (!t.cipherSuites().isEmpty()) {
      t.cipherSuites().forEach(o::addEnabledCipherSuite);
      TLS13_SUITES.forEach(o::addEnabledCipherSuite);
    }
    WebConfig.ClientAuth a = t.clientAuth();
    o.setClientAuth(a == WebConfig.ClientAuth.NO_CLIENT_CERT ? ClientAuth.NONE
        : a.required() ? ClientAuth.REQUIRED : ClientAuth.REQUEST);
    if (a.verified()) {
      PemTrustOptions trust = new PemTrustOptions();
      trust.addCertValue(Buffer.buffer(t.clientCa().orElseThrow().bytes()));
      o.setTrustOptions(trust);
    } else if (a != WebConfig.ClientAuth.NO_CLIENT_CERT) {
      o.setTrustOptions(TrustOptions.wrap(new AnyClientCertificate())); // the toolkit's insecure modes
    }
  }

  /**
   * Loads the key and certificate as the server will and checks that they belong together (the key
   * signs, the certificate's public key verifies), so a wrong pair fails the start, not each handshake.
   *
   * @throws IllegalArgumentException "load TLS key and certificate: ..." when they cannot be used
   */
  static void checkKeyPair(Vertx vertx, HttpServerOptions o) {
    if (!o.isSsl()) {
      return;
    }
    KeyManagerFactory kmf;
    try {
      kmf = o.getKeyCertOptions().getKeyManagerFactory(vertx);
    } catch (Exception e) {
      throw new IllegalArgumentException("load TLS key and certificate: " + oneLine(e), e);
    }
    for (KeyManager km : kmf.getKeyManagers()) {
      if (!(km instanceof X509KeyManager x)) {
        continue;
      }
      for (String type : List.of("RSA", "EC", "EdDSA", "Ed25519", "Ed448", "RSASSA-PSS")) {
        String[] aliases = x.getServerAliases(type, null);
        if (aliases == null) {
          continue;
        }
        for (String alias : aliases) {
          X509Certificate[] chain = x.getCertificateChain(alias);
          PrivateKey key = x.getPrivateKey(alias);
          if (chain == null || chain.length == 0 || key == null) {
            continue;
          }
          if (!signs(key, chain[0])) {
            throw new IllegalArgumentException("load TLS key and certificate: the key does not belong to the "
                + "certificate " + chain[0].getSubjectX500Principal().getName());
          }
          return;
        }
      }
    }
    throw new IllegalArgumentException("load TLS key and certificate: no usable key and certificate pair");
  }

  private static boolean signs(PrivateKey key, X509Certificate cert) {
    String alg = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "EdDSA", "Ed25519" -> "Ed25519";
      case "Ed448" -> "Ed448";
      default -> null;
    };
    if (alg == null) {
      return true; // a key type this check does not know: the handshake will tell
    }
    try {
      byte[] probe = "segscope key pair check".getBytes(StandardCharsets.US_ASCII);
      Signature sign = Signature.getInstance(alg);
      sign.initSign(key);
      sign.update(probe);
      byte[] sig = sign.sign();
      Signature verify = Signature.getInstance(alg);
      verify.initVerify(cert.getPublicKey());
      verify.update(probe);
      return verify.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /**
   * Whether a client certificate names one of {@code allowed} as a SAN (DNS name, e-mail, IP address
   * or URI), as the toolkit's client_allowed_sans.
   */
  static boolean hasAllowedSan(X509Certificate cert, List<String> allowed) {
    List<String> sans = new ArrayList<>();
    try {
      var all = cert.getSubjectAlternativeNames();
      if (all == null) {
        return false;
      }
      for (List<?> san : all) {
        int type = (Integer) san.get(0);
        if (type == 1 || type == 2 || type == 6 || type == 7) { // rfc822Name, dNSName, URI, iPAddress
          sans.add(String.valueOf(san.get(1)));
        }
      }
    } catch (CertificateParsingException e) {
      return false;
    }
    for (String a : allowed) {
      for (String s : sans) {
        if (a.equals(s) || sameIp(a, s)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean sameIp(String a, String b) {
    if (!looksLikeIp(a) || !looksLikeIp(b)) {
      return false;
    }
    try {
      return InetAddress.getByName(a).equals(InetAddress.getByName(b));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean looksLikeIp(String s) {
    return !s.isEmpty() && s.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':');
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.replaceAll("\\s+", " ").strip();
  }

  /** Accepts any client certificate (RequestClientCert, RequireAnyClientCert: the toolkit's insecure modes). */
  private static final class AnyClientCertificate implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
      throw new UnsupportedOperationException("a server-side trust manager");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
