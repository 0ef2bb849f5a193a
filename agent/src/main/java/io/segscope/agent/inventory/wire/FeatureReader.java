package io.segscope.agent.inventory.wire;

import io.segscope.agent.inventory.model.Features;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads offload features in one network namespace. Implementations hold sockets created in that
 * namespace; they are used by one thread at a time.
 */
public interface FeatureReader extends AutoCloseable {

  /** Features of one device; {@link Features#unavailable} (not an exception) if it cannot be read. */
  Features read(int ifindex, String name);

  /**
   * Features of every device of the namespace, by ifindex, given the devices' names. The default
   * reads them one at a time; netlink overrides it with a single dump.
   */
  default Map<Integer, Features> readAll(Map<Integer, String> namesByIndex) {
    Map<Integer, Features> out = new HashMap<>();
    namesByIndex.forEach((index, name) -> out.put(index, read(index, name)));
    return out;
  }

  Features.Source source();

  @Override
  void close();
}
