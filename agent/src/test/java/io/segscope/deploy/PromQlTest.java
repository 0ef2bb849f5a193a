package io.segscope.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The PromQL linter the dashboard and rule tests rely on finds what it claims to find. */
class PromQlTest {

  @Test
  void acceptsAContractQueryWithGroupingAndVariables() {
    PromQl.Lint lint = PromQl.lint("histogram_quantile(0.99, sum by (le) (rate(segscope_gso_sw_duration_seconds_bucket"
        + "{job=\"$job\", instance=~\"$instance\", netns=\"$netns\", device=\"$device\"}[$__rate_interval])))");
    assertThat(lint.problems()).isEmpty();
    assertThat(lint.series()).containsExactly("segscope_gso_sw_duration_seconds_bucket");
    assertThat(lint.variables()).containsExactlyInAnyOrder("job", "instance", "netns", "device", "__rate_interval");
    assertThat(lint.labelsUsed()).contains("le", "netns", "device");
  }

  @Test
  void findsUnbalancedBracketsAndStrings() {
    assertThat(PromQl.lint("sum(rate(up[5m])").problems()).anyMatch(p -> p.contains("unclosed '('"));
    assertThat(PromQl.lint("sum(up))").problems()).anyMatch(p -> p.contains("unbalanced ')'"));
    assertThat(PromQl.lint("up{job=\"x}").problems()).anyMatch(p -> p.contains("unterminated string"));
    assertThat(PromQl.lint("sum(up])").problems()).anyMatch(p -> p.contains("unbalanced ']'"));
  }

  @Test
  void findsSeriesOutsideTheContract() {
    assertThat(PromQl.lint("rate(segscope_gso_sw_skb_total[5m])").problems())
        .containsExactly("series segscope_gso_sw_skb_total is not in the metric contract");
  }

  @Test
  void findsLabelsTheSeriesDoesNotHave() {
    assertThat(PromQl.lint("segscope_probe_attached{device=\"eth0\"}").problems())
        .singleElement().asString().contains("has no label device");
    assertThat(PromQl.lint("sum by (cause) (rate(segscope_gso_sw_skbs_total[5m]))").problems())
        .singleElement().asString().contains("grouping label cause");
  }

  @Test
  void readsSeriesNamesOfANameRegexSelector() {
    PromQl.Lint ok = PromQl.lint("{__name__=~\"segscope_gso_sw_skbs_total|segscope_device_info\", netns=\"1\"}");
    assertThat(ok.problems()).isEmpty();
    assertThat(ok.series()).containsExactlyInAnyOrder("segscope_gso_sw_skbs_total", "segscope_device_info");
    assertThat(PromQl.lint("{__name__=~\"segscope_nope|up\"}").problems())
        .containsExactly("series segscope_nope is not in the metric contract");
  }

  @Test
  void findsUnknownFunctions() {
    assertThat(PromQl.lint("rates(up[5m])").problems()).containsExactly("unknown function rates()");
  }

  @Test
  void flagsAVariableLeftOutsideAString() {
    assertThat(PromQl.lint("topk($n, up)").problems()).anyMatch(p -> p.contains("unsubstituted variable"));
  }
}
