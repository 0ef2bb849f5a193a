package io.segscope.agent.inventory.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class FeaturesTest {
  /** A copy of {@code s} that is equal but not the same instance (as each netlink decode makes). */
  private static String fresh(String s) {
    return new String(s.toCharArray());
  }

  private static Features of(Set<String> active, Set<String> hardware) {
    return new Features(Features.Source.ETHTOOL_NETLINK, List.of(fresh("tx-tcp-segmentation"), "",
        fresh("tx-generic-segmentation"), fresh("rx-gro")), active, hardware, Set.of(), Set.of(fresh("rx-gro")), "");
  }

  @Test
  void theSetsKeepTheSemanticsAndTheNameOrderOfTheTreeSetsTheyReplace() {
    Set<String> active = new HashSet<>(List.of("tx-tcp-segmentation", "rx-gro", "tx-generic-segmentation"));
    Features f = of(active, Set.of("tx-tcp-segmentation"));
    assertThat(f.active()).isEqualTo(active).containsExactlyElementsOf(new TreeSet<>(active));
    assertThat(f.known()).containsExactly("tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro");
    assertThat(f.isActive("rx-gro")).isTrue();
    assertThat(f.isActive("tx-udp-segmentation")).isFalse();
    assertThat(f.active().contains(42)).isFalse();
    assertThat(f.isFixed("tx-tcp-segmentation")).as("in hardware, not in noChange").isFalse();
    assertThat(f.isFixed("tx-generic-segmentation")).as("not in hardware").isTrue();
    assertThat(f.isFixed("rx-gro")).as("in noChange").isTrue();
    assertThat(f.wanted()).isEmpty();
    assertThat(f.active().hashCode()).isEqualTo(active.hashCode());
  }

  @Test
  void theSetsAreImmutable() {
    Features f = of(Set.of("rx-gro"), Set.of());
    assertThatThrownBy(() -> f.active().add("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.active().remove("rx-gro")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.active().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> {
      var it = f.active().iterator();
      it.next();
      it.remove();
    }).isInstanceOf(UnsupportedOperationException.class);
    var it = f.hardware().iterator();
    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void everyDeviceSharesOneInstanceOfEachName() {
    Features a = of(Set.of(fresh("tx-tcp-segmentation")), Set.of(fresh("rx-gro")));
    Features b = of(Set.of(fresh("tx-tcp-segmentation")), Set.of(fresh("rx-gro")));
    assertThat(a.active().iterator().next()).isSameAs(b.active().iterator().next());
    assertThat(a.hardware().iterator().next()).isSameAs(b.noChange().iterator().next());
    assertThat(a.known().get(0)).isSameAs(b.known().get(0)).isSameAs(a.active().iterator().next());
  }

  @Test
  void aKernelSendingEndlessNewNamesIsBoundedNotInterned() {
    Interner<String> table = new Interner<>(3);
    String a = fresh("a");
    assertThat(table.of(a)).isSameAs(a);
    assertThat(table.of(fresh("a"))).isSameAs(a);
    table.of("b");
    table.of("c");
    String late = fresh("d");
    assertThat(table.of(late)).as("past the limit a name is kept as given").isSameAs(late);
    assertThat(table.of(fresh("d"))).isNotSameAs(late).isEqualTo("d");
    assertThat(table.of(fresh("a"))).as("what was shared stays shared").isSameAs(a);
  }
}
