package io.segscope.agent.inventory.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.segscope.agent.inventory.Fixtures;
import io.segscope.agent.inventory.wire.EthtoolNetlinkFeatures;
import io.segscope.agent.netlink.DecodeWarnings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Equal feature sets are one instance; unavailable ones and sets beyond the bound are not shared. */
class FeatureSetsTest {
  private final DecodeWarnings warnings = new DecodeWarnings();

  private Map<Integer, Features> recorded() {
    List<String> names = EthtoolNetlinkFeatures.decodeFeatureNames(Fixtures.messages("strset-a.bin"), warnings);
    return EthtoolNetlinkFeatures.decodeFeatureDump(Fixtures.messages("features-a.bin"), names, warnings);
  }

  @Test
  void twoReadsOfTheSameDevicesShareTheirFeatures() {
    FeatureSets sets = new FeatureSets(16);
    Map<Integer, Features> first = recorded();
    Map<Integer, Features> second = recorded();
    assertThat(first).isNotEmpty().isEqualTo(second);
    for (Integer index : first.keySet()) {
      Features a = sets.canonical(first.get(index));
      Features b = sets.canonical(second.get(index));
      assertThat(b).isSameAs(a).isEqualTo(second.get(index));
      assertThat(a.available()).isTrue();
    }
    assertThat(sets.size()).isLessThanOrEqualTo(first.size()).isPositive();
  }

  @Test
  void unavailableFeaturesKeepTheirOwnErrorAndAreNotKept() {
    FeatureSets sets = new FeatureSets(16);
    Features a = Features.unavailable("read features of a: ENODEV");
    assertThat(sets.canonical(a)).isSameAs(a);
    assertThat(sets.canonical(null)).isNull();
    assertThat(sets.size()).isZero();
  }

  @Test
  void beyondTheBoundASetIsUsedAsItIs() {
    FeatureSets sets = new FeatureSets(2);
    for (int i = 0; i < 5; i++) {
      Features f = features("f" + i);
      assertThat(sets.canonical(f)).isSameAs(f);
    }
    assertThat(sets.size()).isEqualTo(2);
    Features again = features("f0");
    assertThat(sets.canonical(again)).isNotSameAs(again).isEqualTo(again);
    Features late = features("f4");
    assertThat(sets.canonical(late)).isSameAs(late);
  }

  private static Features features(String active) {
    return new Features(Features.Source.ETHTOOL_NETLINK, List.of(active), Set.of(active), Set.of(), Set.of(),
        Set.of(), "");
  }
}
