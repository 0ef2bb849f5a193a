package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** Runs a fixture class through the JUnit launcher and checks what {@link LabExtension} did around it. */
@LabTest
class LabExtensionTest {
  static final Map<String, Lab> LABS = new ConcurrentHashMap<>();
  static final Map<String, List<Netns>> MADE = new ConcurrentHashMap<>();

  @Test
  void eachTestGetsItsOwnLabClosedAfterwardsEvenWhenItFails() {
    LABS.clear();
    MADE.clear();
    TestExecutionSummary summary = run(Fixture.class);

    assertThat(summary.getTestsStartedCount()).isEqualTo(2);
    assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
    assertThat(summary.getFailures()).singleElement()
        .satisfies(f -> assertThat(f.getException()).hasMessage("boom after building S1"));
    assertThat(LABS).containsOnlyKeys("before:buildsThenFails", "test:buildsThenFails",
        "before:usesItsLab", "test:usesItsLab");
    assertThat(LABS.get("test:buildsThenFails")).isSameAs(LABS.get("before:buildsThenFails"));
    assertThat(LABS.get("test:usesItsLab")).isSameAs(LABS.get("before:usesItsLab"))
        .isNotSameAs(LABS.get("test:buildsThenFails"));
    assertThat(MADE.get("buildsThenFails")).hasSize(4);
    for (Lab lab : LABS.values()) {
      assertThat(lab.leftovers()).as("leftovers of %s", lab).isEmpty();
      assertThat(lab.toString()).contains("closed");
    }
  }

  private static TestExecutionSummary run(Class<?> fixture) {
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
        .selectors(selectClass(fixture)).build();
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    LauncherFactory.create().execute(request, listener);
    return listener.getSummary();
  }

  /** Not run by surefire (nested classes are excluded); launched by the test above. */
  @LabTest
  static class Fixture {
    @BeforeEach
    void before(Lab lab, TestInfo info) {
      LABS.put("before:" + info.getTestMethod().orElseThrow().getName(), lab);
      lab.namespace("pre");
    }

    @Test
    void buildsThenFails(Lab lab) {
      LABS.put("test:buildsThenFails", lab);
      Scenarios.s1GsoMismatch(lab, false);
      MADE.put("buildsThenFails", lab.namespaces());
      throw new IllegalStateException("boom after building S1");
    }

    @Test
    void usesItsLab(Lab lab) {
      LABS.put("test:usesItsLab", lab);
      lab.namespace("only");
      MADE.put("usesItsLab", lab.namespaces());
    }
  }
}
