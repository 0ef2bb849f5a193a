package io.segscope.agent.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import io.segscope.agent.netlink.NetlinkMessage;
import io.segscope.agent.netlink.NetlinkMessages;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/** Loads the recorded netlink fixtures (see NetlinkFixtureRecorder). */
public final class Fixtures {
  private Fixtures() {}

  public static byte[] bytes(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/netlink/" + name)) {
      if (in == null) {
        throw new IllegalStateException("fixture /netlink/" + name + " is missing");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static List<NetlinkMessage> messages(String name) {
    return NetlinkMessages.parse(ByteBuffer.wrap(bytes(name)).order(ByteOrder.nativeOrder()));
  }

  public static JsonNode json(String name) {
    try {
      return Lab.JSON.readTree(bytes(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
