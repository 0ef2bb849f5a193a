package io.segscope.exporters.model;

/** A device's segmentation/aggregation limit, each exported as its own gauge family. */
public enum DeviceLimit {
  GSO_MAX_SIZE("segscope_device_gso_max_size_bytes", "Largest GSO super-packet the device accepts (gso_max_size)."),
  GSO_MAX_SEGS("segscope_device_gso_max_segments",
      "Most segments per GSO super-packet the device accepts (gso_max_segs)."),
  TSO_MAX_SIZE("segscope_device_tso_max_size_bytes",
      "Largest super-packet the driver can segment (tso_max_size; read-only)."),
  TSO_MAX_SEGS("segscope_device_tso_max_segments",
      "Most segments the driver can produce per super-packet (tso_max_segs; read-only)."),
  GRO_MAX_SIZE("segscope_device_gro_max_size_bytes", "Largest packet GRO builds on the device (gro_max_size)."),
  GSO_IPV4_MAX_SIZE("segscope_device_gso_ipv4_max_size_bytes",
      "Largest IPv4 GSO super-packet the device accepts (gso_ipv4_max_size)."),
  GRO_IPV4_MAX_SIZE("segscope_device_gro_ipv4_max_size_bytes",
      "Largest IPv4 packet GRO builds on the device (gro_ipv4_max_size)."),
  MTU("segscope_device_mtu_bytes", "The device's MTU.");

  private final String metric;
  private final String help;

  DeviceLimit(String metric, String help) {
    this.metric = metric;
    this.help = help;
  }

  public String metric() {
    return metric;
  }

  public String help() {
    return help;
  }
}
