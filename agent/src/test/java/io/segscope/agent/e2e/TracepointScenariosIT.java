package io.segscope.agent.e2e;

import java.time.Duration;

/**
 * S1/S2/S3 and their controls on the host kernel in tracepoint mode (forced, so the test means the
 * same on any kernel from 6.3 on; which mode "auto" picks is ProbePlanLabTest's and DoctorIT's job).
 */
class TracepointScenariosIT extends ScenarioSuite {
  @Override
  String mode() {
    return "tracepoint";
  }

  @Override
  Duration readyTimeout() {
    return Duration.ofSeconds(90);
  }
}
