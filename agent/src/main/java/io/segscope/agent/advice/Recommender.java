package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Applies every rule to every device's cost. Pure: no kernel access, no state. */
public final class Recommender {

  /** Every rule segscope has, in the order their findings are listed. */
  public static final List<Rule> RULES = List.of(new GsoSizeMismatchRule(), new GuestGsoSizeRule(),
      new OffloadDisabledRule(), new TunnelOffloadRule(), new MtuMismatchRule(), new QdiscSegmentationRule(),
      new WireguardRule(), new UdpReceiveSegmentationRule(), new GenericXdpCopyRule(), new BigTcpHeadroomRule());

  private final List<Rule> rules;

  public Recommender(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  public Recommender() {
    this(RULES);
  }

  public List<Finding> evaluate(Collection<DeviceCost> costs, AdviceContext ctx) {
    List<Finding> out = new ArrayList<>();
    for (DeviceCost c : costs) {
      for (Rule r : rules) {
        Optional<Finding> f = r.evaluate(c, ctx);
        f.ifPresent(out::add);
      }
    }
    return out;
  }
}
