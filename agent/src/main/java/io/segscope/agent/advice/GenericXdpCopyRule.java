package io.segscope.agent.advice;

import io.segscope.agent.cost.DeviceCost;
import io.segscope.agent.inventory.model.Device;
import io.segscope.agent.inventory.model.Netns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code generic_xdp_copy}: an XDP program attached in generic (skb) mode makes the kernel copy or
 * linearize every nonlinear skb, and every skb with less than 256 bytes of headroom (docs/kernel.md:
 * 600/1090/4900 ns p50/p90/p99 per packet against 40/59/90 without). Where the driver runs XDP
 * natively, attaching the same program in driver mode removes the copy; except on a veth, where it does not
 * (issue 28): the finding then explains instead of commanding.
 *
 * <p>Commands re-attach the running program by id with bpftool: pinned first (detaching the generic
 * attachment drops what may be the program's last reference), moved to driver mode, unpinned. Devices
 * whose kind has no native XDP
 * (bridge, macvlan, vxlan, ...) get no advice: the alternative there (a tc BPF program) is a rewrite,
 * not a command.
 */
public final class GenericXdpCopyRule implements Rule {

  /**
   * Why a veth gets no command (issue 28). A veth's native XDP sees the peer's transmitted skbs as skbs and copies
   * those that are shared, nonlinear or have less than 256 bytes of headroom, the predicate of generic mode
   * (veth_convert_skb_to_xdp_buff); and a native program takes the software GSO features off the peer
   * (veth_fix_features), whose sender then segments every super-packet in software before the copies. Measured in
   * lab scenario S3 over 3 alternating rounds: driver mode cut iperf3 from 8.4 to 5.1 Gbit/s (medians) and raised
   * the host's kernel CPU per byte from 0.79 to 1.52 ns/B.
   */
  static final String VETH_EXPLANATION = "moving the program to driver mode does not help on a veth: the veth"
      + " copies the skbs its peer sends that are nonlinear or lack 256 bytes of headroom just as generic mode does,"
      + " and a native program takes the software GSO features off the peer, which then segments every super-packet"
      + " in software (measured in segscope's lab: 40 % less throughput, twice the kernel CPU per byte). Run the"
      + " program where packets enter the host (the physical device, in driver mode), or as a tc BPF program on this"
      + " device, which sees skbs without copying them";

  /** Kinds whose driver implements ndo_bpf (native XDP); "" is a physical NIC's driver. */
  static final Set<String> NATIVE_KINDS = Set.of("veth", "", "netkit");

  @Override
  public String name() {
    return "generic_xdp_copy";
  }

  @Override
  public Optional<Finding> evaluate(DeviceCost cost, AdviceContext ctx) {
    if (cost.xdpCopiedPerSec() < ctx.thresholds().minXdpCopiesPerSec()) {
      return Optional.empty();
    }
    Optional<AdviceContext.Located> at = ctx.locate(cost);
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Device d = at.get().device();
    Netns ns = at.get().netns();
    if (!d.link().xdp().generic() || !NATIVE_KINDS.contains(d.kind())) {
      return Optional.empty();
    }
    OptionalInt prog = d.link().xdp().genericProgId().isPresent() ? d.link().xdp().genericProgId()
        : d.link().xdp().progId();
    if (prog.isEmpty()) {
      return Optional.empty();
    }
    boolean veth = d.kind().equals("veth");
    List<Command> commands = toNativeMode(ns, d, prog.getAsInt());
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("copies_per_sec", Evidence.round(cost.xdpCopiedPerSec()));
    ev.put("passed_per_sec", Evidence.round(cost.xdpPassedPerSec()));
    ev.put("copied_bytes_per_sec", Evidence.round(cost.xdpCopiedBytesPerSec()));
    ev.put("cpu_cores", cost.xdpCpu().cores());
    ev.put("cpu_basis", cost.xdpCpu().explanation());
    ev.put("copy_p50_ns", cost.xdpCopyQuantileNanos(0.5));
    ev.put("copy_p99_ns", cost.xdpCopyQuantileNanos(0.99));
    ev.put("mode", cost.xdpMode());
    ev.put("xdp_program_id", prog.getAsInt());
    ev.put("kind", d.kind().isEmpty() ? "physical" : d.kind());
    String alternatives = ctx.xdpFragsCopy()
        ? "; or load a frags-aware build of the program (SEC(\"xdp.frags\")): this kernel then copies into a "
            + "page_pool instead of linearizing (still a copy)"
        : "";
    String risk = veth ? "none: there is no command to run"
        : "the program is detached between the detach and attach commands: packets pass "
            + "unfiltered for that moment; bpffs must be mounted at /sys/fs/bpf for the pin" + alternatives;
    String explanation = veth ? VETH_EXPLANATION + (ctx.xdpFragsCopy()
        ? "; a frags-aware build of the program (SEC(\"xdp.frags\")) makes this kernel copy into a page_pool instead"
            + " of linearizing (still a copy)"
        : "") : "";
    ev.put("driver_mode_helps", !veth);
    return Optional.of(new Finding(name(), "warning", AdviceContext.ref(d), List.of(AdviceContext.ref(d)),
        String.format("%s copies %.0f skbs/s for its generic-mode XDP program (id %d)", AdviceContext.label(d),
            cost.xdpCopiedPerSec(), prog.getAsInt()),
        ev, veth ? List.of() : commands, cost.xdpCpu().cores(),
        "the CPU of the copies at " + AdviceContext.label(d) + " (" + cost.xdpCpu().basis()
            + (veth ? "): what running the program where packets are not skbs yet would save"
                : "): native mode runs the program before an skb exists"),
        cost.xdpCpu().basis().equals("measured") ? "high" : "medium", risk, explanation));
  }

  /** Moves program {@code prog} from generic to driver mode on {@code d}: pin, detach, attach pinned, unpin. */
  private static List<Command> toNativeMode(Netns ns, Device d, int prog) {
    List<Command> commands = new ArrayList<>();
    String pin = "/sys/fs/bpf/segscope-xdp-" + prog;
    String id = Integer.toString(prog);
    byte[] dev = Command.name(d.name());
    commands.add(Command.of("bpftool", "prog", "pin", "id", id, pin));
    commands.add(NetnsCommands.bpftool(ns, List.of(Command.text("net"), Command.text("detach"),
        Command.text("xdpgeneric"), Command.text("dev"), dev)));
    commands.add(NetnsCommands.bpftool(ns, List.of(Command.text("net"), Command.text("attach"),
        Command.text("xdpdrv"), Command.text("pinned"), Command.text(pin), Command.text("dev"), dev)));
    commands.add(Command.of("rm", pin));
    return commands;
  }
}
