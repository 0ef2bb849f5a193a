package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.segscope.agent.http.WebConfig;
import io.segscope.testkit.deploy.RepoFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web configurations shipped under deploy/web-config: Prometheus' own checker ({@code promtool
 * check web-config}, Debian's prometheus package) accepts them, and so does segscope. A table of
 * broken files: promtool refuses each, and so does segscope (with a one-line message), so the two
 * readers of the format agree on what is wrong.
 */
class WebConfigExamplesTest {
  private static final String DIR = "deploy/web-config";
  private static final List<String> EXAMPLES = List.of("web-config.yml", "web-config-mtls.yml");
  private static final String CERT = "  cert_file: example-server.crt\n";
  private static final String KEY = "  key_file: example-server.key\n";

  @TempDir
  Path dir;

  @Test
  void promtoolAndSegscopeAcceptTheShippedExamples() throws Exception {
    Tool.PROMTOOL.require();
    for (String name : EXAMPLES) {
      Path file = RepoFiles.path(DIR + "/" + name);
      Tool.Result r = Tool.PROMTOOL.run(file.getParent(), "check", "web-config", file.toString());
      assertThat(r.exitCode()).as("promtool check web-config %s: %s", name, r.output()).isZero();
      assertThat(r.output()).contains("SUCCESS");
      WebConfig c = WebConfig.load(file);
      assertThat(c.tls()).as(name).isPresent();
    }
    assertThat(WebConfig.load(RepoFiles.path(DIR + "/web-config.yml")).users()).containsKey("prometheus");
  }

  @Test
  void theExamplesSayTheyAreExamples() {
    for (String name : EXAMPLES) {
      assertThat(RepoFiles.text(DIR + "/" + name)).as(name).containsIgnoringCase("example")
          .contains("published with segscope");
    }
    assertThat(RepoFiles.text("docs/security.md")).contains("deploy/web-config").containsIgnoringCase("example");
  }

  /** A broken file and what segscope's message says. */
  record Broken(String name, String yaml, String message) {}

  static List<Broken> broken() {
    return List.of(
        new Broken("unknown top-level field", "tls_config:\n" + CERT + KEY, "tls_config: unknown field"),
        new Broken("unknown TLS field", "tls_server_config:\n" + CERT + KEY + "  certfile: x\n",
            "certfile: unknown field"),
        new Broken("certificate without key", "tls_server_config:\n" + CERT, "missing one of key or key_file"),
        new Broken("key without certificate", "tls_server_config:\n" + KEY, "missing one of cert or cert_file"),
        new Broken("missing certificate file", "tls_server_config:\n  cert_file: nowhere.crt\n" + KEY,
            "does not exist"),
        new Broken("a key file that holds a certificate", "tls_server_config:\n" + CERT
            + "  key_file: example-server.crt\n", "no PEM private key"),
        new Broken("a certificate file that is not PEM", "tls_server_config:\n  cert_file: not-pem.crt\n" + KEY,
            "not a PEM certificate"),
        new Broken("unknown client_auth_type", "tls_server_config:\n" + CERT + KEY + "  client_auth_type: Bogus\n",
            "client_auth_type: 'Bogus'"),
        new Broken("client CA without client auth", "tls_server_config:\n" + CERT + KEY
            + "  client_ca_file: example-ca.crt\n", "client_ca_file without a client_auth_type"),
        new Broken("unknown TLS version", "tls_server_config:\n" + CERT + KEY + "  min_version: TLS14\n",
            "unknown TLS version 'TLS14'"),
        new Broken("unknown cipher", "tls_server_config:\n" + CERT + KEY + "  cipher_suites: [TLS_NOT_A_CIPHER]\n",
            "unknown cipher 'TLS_NOT_A_CIPHER'"),
        new Broken("not a bcrypt hash", "basic_auth_users:\n  alice: plaintext-password\n", "not a bcrypt hash"),
        new Broken("a header that cannot be set", "http_server_config:\n  headers:\n    X-Powered-By: segscope\n",
            "can not be configured"),
        new Broken("a header value outside its set", "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
            "is not one of"),
        new Broken("http2 not a boolean", "http_server_config:\n  http2: sometimes\n", "expected true or false"),
        new Broken("not YAML", "tls_server_config: [\n", "not valid YAML"),
        new Broken("duplicate key",
            "basic_auth_users:\n  a: $2y$10$1FQfW2VtwVpuxo5Gl7YITeakrr37D.2SpsPv4Kwu7pqWTD13RWQQS\n"
                + "  a: $2y$10$1FQfW2VtwVpuxo5Gl7YITeakrr37D.2SpsPv4Kwu7pqWTD13RWQQS\n",
            "not valid YAML"),
        new Broken("a list where a mapping belongs", "tls_server_config: [a, b]\n", "expected a mapping"));
  }

  @Test
  void promtoolAndSegscopeRefuseTheSameBrokenFiles() throws Exception {
    Tool.PROMTOOL.require();
    for (String f : List.of("example-server.crt", "example-server.key", "example-ca.crt")) {
      Files.copy(RepoFiles.path(DIR + "/" + f), dir.resolve(f));
    }
    Files.writeString(dir.resolve("not-pem.crt"), "this is not a certificate\n");
    List<String> disagreements = new ArrayList<>();
    for (Broken b : broken()) {
      Path file = dir.resolve("broken.yml");
      Files.writeString(file, b.yaml());
      Tool.Result r = Tool.PROMTOOL.run(dir, "check", "web-config", file.toString());
      if (r.exitCode() == 0) {
        disagreements.add(b.name() + ": promtool accepts it");
      }
      try {
        WebConfig.load(file);
        disagreements.add(b.name() + ": segscope accepts it");
      } catch (WebConfig.WebConfigException e) {
        if (!e.getMessage().contains(b.message()) || e.getMessage().contains("\n")) {
          disagreements.add(b.name() + ": segscope says '" + e.getMessage() + "', expected '" + b.message() + "'");
        }
      }
    }
    assertThat(disagreements).isEmpty();
  }

  @Test
  void segscopeRefusesToolkitFieldsItCannotHonour() throws Exception {
    for (String f : List.of("example-server.crt", "example-server.key", "example-ca.crt")) {
      Files.copy(RepoFiles.path(DIR + "/" + f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    for (String[] c : new String[][] {
        {"tls_server_config:\n" + CERT + KEY + "  curve_preferences: [X25519]\n", "curve_preferences: not supported"},
        {"rate_limit:\n  interval: 1s\n  burst: 2\n", "rate_limit: not supported"},
        {"tls_server_config:\n" + CERT + KEY + "  client_auth_type: RequireAndVerifyClientCert\n",
            "needs client_ca_file"}}) {
      Path file = dir.resolve("refused.yml");
      Files.writeString(file, c[0]);
      assertThatThrownBy(() -> WebConfig.load(file)).hasMessageContaining(c[1]);
    }
  }
}
