package io.segscope.probes.ksym;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class KallsymsTest {

  // recorded from the 6.18.44 development kernel, around validate_xmit_skb
  static final List<String> RECORDED = List.of(
      "ffffffff81e62480 T validate_xmit_skb_list",
      "ffffffff81e62110 t validate_xmit_skb.isra.0",
      "ffffffff81e61f80 t netif_skb_features_x",
      "ffffffff81e62600 T dev_hard_start_xmit",
      "ffffffff81e62600 T dev_hard_start_xmit_alias",
      "ffffffffc0a01000 t veth_xmit\t[veth]",
      "ffffffff81000000 T _stext");

  @Test
  void functionAndClonesFindsRenamedCloneButNotPrefixSiblings() throws Exception {
    Kallsyms k = Kallsyms.parse(RECORDED, "recorded");
    List<Kallsyms.Symbol> s = k.functionAndClones("validate_xmit_skb");
    assertThat(s).extracting(Kallsyms.Symbol::name).containsExactly("validate_xmit_skb.isra.0");
    assertThat(s.get(0).start()).isEqualTo(0xffffffff81e62110L);
    assertThat(s.get(0).end()).as("ends where the next symbol starts").isEqualTo(0xffffffff81e62480L);
    assertThat(s.get(0).contains(0xffffffff81e6247fL)).isTrue();
    assertThat(s.get(0).contains(0xffffffff81e62480L)).isFalse();
  }

  @Test
  void atNamesTheSymbolWhoseRangeHoldsAnAddress() throws Exception {
    Kallsyms k = Kallsyms.parse(RECORDED, "recorded");
    assertThat(k.at(0xffffffff81e62110L)).map(Kallsyms.Symbol::name).contains("validate_xmit_skb.isra.0");
    assertThat(k.at(0xffffffff81e6247fL)).map(Kallsyms.Symbol::name).contains("validate_xmit_skb.isra.0");
    assertThat(k.at(0xffffffff81e62480L)).map(Kallsyms.Symbol::name).contains("validate_xmit_skb_list");
    assertThat(k.at(0xffffffff80000000L)).as("below every symbol").isEmpty();
    assertThat(k.at(0xffffffffc0a01000L)).as("the last symbol has no end").isEmpty();
    assertThat(k.address("_stext")).hasValue(0xffffffff81000000L);
    assertThat(k.address("veth_xmit")).as("a module's symbol is not core").isEmpty();
    assertThat(k.address("_etext")).isEmpty();
  }

  @Test
  void aliasesAtTheSameAddressDoNotCloseTheRange() throws Exception {
    Kallsyms k = Kallsyms.parse(RECORDED, "recorded");
    List<Kallsyms.Symbol> s = k.text("validate_xmit_skb_list"::equals);
    assertThat(s.get(0).end()).isEqualTo(0xffffffff81e62600L);
  }

  @Test
  void moduleSymbolsAreNotCoreText() throws Exception {
    Kallsyms k = Kallsyms.parse(RECORDED, "recorded");
    assertThat(k.hasFunction("veth_xmit")).isFalse();
    assertThat(k.hasFunction("dev_hard_start_xmit")).isTrue();
  }

  @Test
  void hiddenAddressesAreAClearError() {
    assertThatThrownBy(() -> Kallsyms.parse(List.of("0000000000000000 T a", "0000000000000000 t b"), "x"))
        .isInstanceOf(KallsymsException.class).hasMessageContaining("kptr_restrict");
  }

  @Test
  void malformedLinesNameTheLine() {
    assertThatThrownBy(() -> Kallsyms.parse(List.of("ffffffff81000000 T ok", "garbage"), "x"))
        .isInstanceOf(KallsymsException.class).hasMessageContaining("line 2");
    assertThatThrownBy(() -> Kallsyms.parse(List.of("zzzz T a"), "x"))
        .isInstanceOf(KallsymsException.class).hasMessageContaining("bad address");
  }
}
