package io.segscope.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The chain a start opens its parts into: closed newest first when a later step fails, kept on success. */
class OpenedSoFarTest {
  static final List<String> PARTS = List.of("a", "b", "c", "d");

  final List<String> released = new ArrayList<>();
  final List<String> told = new ArrayList<>();

  /** Opens the parts in order inside the chain, failing instead of opening part {@code failAt}. */
  void start(int failAt) {
    try (OpenedSoFar opened = new OpenedSoFar(told::add)) {
      for (int i = 0; i < PARTS.size(); i++) {
        if (i == failAt) {
          throw new IllegalStateException("open " + PARTS.get(i) + ": injected");
        }
        opened.add(PARTS.get(i), new StringBuilder(PARTS.get(i)), p -> released.add(p.toString()));
      }
      opened.handOver();
    }
  }

  @ParameterizedTest(name = "failure at part {0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void aFailureClosesEveryPartOpenedBeforeItNewestFirst(int failAt) {
    assertThatThrownBy(() -> start(failAt)).hasMessage("open " + PARTS.get(failAt) + ": injected");
    List<String> expected = new ArrayList<>(PARTS.subList(0, failAt));
    Collections.reverse(expected);
    assertThat(released).as("released, in order").containsExactlyElementsOf(expected);
    assertThat(told).containsExactlyElementsOf(expected);
  }

  @Test
  void handedOverPartsStayOpen() {
    start(PARTS.size());
    assertThat(released).isEmpty();
    assertThat(told).isEmpty();
  }

  @Test
  void aReleaseThatFailsDoesNotKeepTheOlderPartsOpen() {
    assertThatThrownBy(() -> {
      try (OpenedSoFar opened = new OpenedSoFar(told::add)) {
        opened.add("a", "a", released::add);
        opened.add("b", "b", p -> {
          throw new IOException("close b: refused");
        });
        opened.add("c", "c", p -> {
          throw new IllegalStateException("close c: refused");
        });
        assertThat(opened.names()).containsExactly("c", "b", "a");
        throw new IllegalArgumentException("start: injected");
      }
    }).isInstanceOf(IllegalArgumentException.class).hasMessage("start: injected");
    assertThat(released).containsExactly("a");
    assertThat(told).containsExactly("c", "b", "a");
  }
}
