package io.segscope.agent.inventory.model;

import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A device's segmentation/aggregation limits and its MTU, read from its {@link Link}: the one list
 * that the API's {@code limits} object and the {@code segscope_device_*} limit families are both
 * made from, in this order. Each constant has the name of its exported family's constant
 * (exporters' {@code DeviceLimit}).
 */
public enum LinkLimit {
  GSO_MAX_SIZE("gso_max_size", Link::gsoMaxSize),
  GSO_MAX_SEGS("gso_max_segs", Link::gsoMaxSegs),
  TSO_MAX_SIZE("tso_max_size", Link::tsoMaxSize),
  TSO_MAX_SEGS("tso_max_segs", Link::tsoMaxSegs),
  GRO_MAX_SIZE("gro_max_size", Link::groMaxSize),
  GSO_IPV4_MAX_SIZE("gso_ipv4_max_size", Link::gsoIpv4MaxSize),
  GRO_IPV4_MAX_SIZE("gro_ipv4_max_size", Link::groIpv4MaxSize),
  /** Always present. */
  MTU("mtu", l -> OptionalLong.of(l.mtu()));

  private final String key;
  private final Function<Link, OptionalLong> value;

  LinkLimit(String key, Function<Link, OptionalLong> value) {
    this.key = key;
    this.value = value;
  }

  /** The key in the API's {@code limits} object (docs/api.md): the kernel's name of the limit. */
  public String key() {
    return key;
  }

  /** The link's value, empty when the kernel did not report it. */
  public OptionalLong of(Link link) {
    return value.apply(link);
  }
}
