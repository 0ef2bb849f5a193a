package io.segscope.agent.inventory.model;

import io.segscope.device.DeviceId;
/**
 * One device reached while walking a chain.
 *
 * @param device the device reached
 * @param name its name
 * @param via the device it was reached from
 * @param relation how it relates to {@code via}
 * @param distance number of steps from the chain's start (1 for a neighbour)
 */
public record Hop(DeviceId device, String name, DeviceId via, Relation relation, int distance) {}
