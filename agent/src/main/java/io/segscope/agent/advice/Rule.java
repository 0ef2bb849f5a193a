package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import java.util.Optional;

/** One recommendation rule: a pure function of one device's cost and the context. */
public interface Rule {
  /** The stable name used in ids, metrics and docs. */
  String name();

  Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx);
}
