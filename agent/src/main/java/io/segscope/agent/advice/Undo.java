package io.segscope.agent.advice;

import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Inventory;
import io.segscope.agent.inventory.model.Link;
import io.segscope.agent.inventory.model.Netns;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The commands that put back the size settings a change altered: for each device recorded before the
 * change (a recommendation's devices and the devices feeding its subject), where the device is still
 * there under the same name and its {@code gso_max_size}, {@code gso_ipv4_max_size}, {@code gso_max_segs}
 * or MTU differs from the value recorded, {@code ip link set dev D ...} with the old values. Pure.
 */
final class Undo {
  /** Devices recorded per recommendation at most. */
  static final int MAX_DEVICES = 64;

  private Undo() {}

  /** The devices whose settings to record for finding {@code f}: its own, then its subject's sources. */
  static List<Device> record(Finding f, Inventory inv) {
    List<Device> out = new ArrayList<>();
    f.devices().forEach(d -> inv.device(d.netns(), d.ifindex()).filter(x -> x.name().equals(d.device()))
        .ifPresent(out::add));
    inv.device(f.subject().netns(), f.subject().ifindex()).ifPresent(s -> inv.graph().sources(s.id()).stream()
        .map(x -> x.device()).filter(x -> out.stream().noneMatch(y -> y.id().equals(x.id()))).forEach(out::add));
    return out.size() > MAX_DEVICES ? List.copyOf(out.subList(0, MAX_DEVICES)) : List.copyOf(out);
  }

  /** The commands that restore what {@code before} recorded, against the inventory {@code now}. */
  static List<Command> commands(List<Device> before, Inventory now) {
    List<Command> out = new ArrayList<>();
    for (Device d : before) {
      Optional<Device> cur = now.device(d.netns(), d.ifindex()).filter(x -> x.name().equals(d.name()));
      Optional<Netns> ns = now.namespace(d.netns());
      if (cur.isEmpty() || ns.isEmpty()) {
        continue;
      }
      Link o = d.link();
      Link c = cur.get().link();
      List<List<String>> sets = new ArrayList<>();
      if (o.gsoMaxSize().isPresent() && c.gsoMaxSize().isPresent()) {
        GsoSizeMismatchRule.Limits ol = GsoSizeMismatchRule.Limits.of(o);
        GsoSizeMismatchRule.Limits cl = GsoSizeMismatchRule.Limits.of(c);
        sets.addAll(GsoSizeMismatchRule.raiseSettings(cl.size().getAsLong(), cl.v4(), ol.size().getAsLong(), ol.v4()));
      }
      List<String> rest = new ArrayList<>();
      if (o.gsoMaxSegs().isPresent() && !o.gsoMaxSegs().equals(c.gsoMaxSegs())) {
        rest.addAll(List.of("gso_max_segs", Long.toString(o.gsoMaxSegs().getAsLong())));
      }
      if (o.mtu() != c.mtu()) {
        rest.addAll(List.of("mtu", Integer.toString(o.mtu())));
      }
      if (!rest.isEmpty()) {
        if (sets.isEmpty()) {
          sets.add(new ArrayList<>());
        }
        sets.get(0).addAll(rest);
      }
      for (List<String> set : sets) {
        out.add(NetnsCommands.ipLinkSet(ns.get(), d.name(), set));
      }
    }
    return out;
  }
}
