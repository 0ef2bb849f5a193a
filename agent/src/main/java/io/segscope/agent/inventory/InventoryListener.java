package io.segscope.agent.inventory;

import io.segscope.agent.inventory.model.Inventory;

/**
 * Told about every new inventory snapshot, on the inventory's follower thread. Keep it short
 * (hand work to another thread); an exception is logged and does not stop the inventory.
 */
@FunctionalInterface
public interface InventoryListener {
  void changed(Inventory previous, Inventory current);
}
