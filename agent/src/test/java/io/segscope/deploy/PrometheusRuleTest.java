package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.testkit.deploy.RepoFiles;
import io.segscope.testkit.deploy.Tree;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** deploy/kubernetes/prometheusrule.yaml carries exactly the rules of the Prometheus rule file. */
class PrometheusRuleTest {
  private static final String PROMETHEUS_RULE = "deploy/kubernetes/prometheusrule.yaml";

  @Test
  void isAPrometheusOperatorRuleWhoseSpecEqualsTheRuleFile() {
    Map<String, Object> pr = RepoFiles.yaml(PROMETHEUS_RULE);
    assertThat(Tree.str(pr, "apiVersion")).isEqualTo("monitoring.coreos.com/v1");
    assertThat(Tree.str(pr, "kind")).isEqualTo("PrometheusRule");
    assertThat(Tree.str(pr, "metadata.name")).isEqualTo("segscope");
    assertThat(Tree.str(pr, "metadata.namespace")).isEqualTo("segscope");
    assertThat(Tree.map(pr, "spec")).isEqualTo(RepoFiles.yaml(AlertRulesTest.RULES));
  }

  @Test
  void theGeneratorReproducesTheFileExactly() {
    Tool.Result r = Tool.BASH.require().run(RepoFiles.root(), "scripts/gen-prometheusrule", "--check");
    assertThat(r.exitCode()).as("scripts/gen-prometheusrule --check said:%n%s", r.output()).isZero();
  }
}
