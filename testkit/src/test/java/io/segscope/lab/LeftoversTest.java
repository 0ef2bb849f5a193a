package io.segscope.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeftoversTest {

  @Test
  void linksWithControlBytesInTheirNamesDoNotBreakTheSearch() throws Exception {
    // iproute2 6.1 writes such a name raw into its JSON (seen: another lab's ESC-named devices)
    String json = "[{\"ifindex\":1,\"ifname\":\"lo\"},"
        + "{\"ifindex\":7,\"ifname\":\"e\u001b[31m\",\"ifalias\":\"tenant\"},"
        + "{\"ifindex\":8,\"ifname\":\"va0\",\"ifalias\":\"segscope-lab-sg42\"}]";
    assertThat(Leftovers.withAlias(json, "segscope-lab-sg42")).containsExactly("va0");
    assertThat(Leftovers.withAlias(json, "tenant")).containsExactly("e\u001b[31m");
  }
}
