/*
 * segscope, tracepoint mode: generic (skb-mode) XDP copies. Compiled in with -DXDP_MODE_TRACEPOINT.
 *
 * There is no tracepoint on the generic-XDP path itself (kernel-facts.md §2). net:netif_receive_skb
 * fires in __netif_receive_skb_core right before do_xdp_generic, so on a device with a generic XDP
 * program (net_device.xdp_prog set) the skb's shape there decides, by the kernel's own predicate
 * (xdp_copy_needed in common.h), whether it will be copied/linearized.
 * This mode counts copies and bytes; it cannot time them (the kprobe/fentry modes do).
 *
 * Inputs (-D): common.h offsets plus OFF_DEV_XDP_PROG, OFF_SKB_REDIRECTED_BYTE/SKB_REDIRECTED_SHIFT/
 * SKB_REDIRECTED_MASK (absent on kernels without skb->redirected), XDP_HEADROOM_AFTER_MAC_PUSH.
 */
#ifdef XDP_MODE_TRACEPOINT

/*
 * The agent sets xdp_gate[0] = 1 while its device inventory shows no generic XDP program anywhere:
 * then every received packet costs one array lookup instead of two kernel reads. 0 (the default)
 * evaluates every packet, so nothing is missed before the agent's first inventory read.
 */
BPF_ARRAY(xdp_gate, u32, 1);

TRACEPOINT_PROBE(net, netif_receive_skb)
{
    int zero = 0;
    u32 *closed = xdp_gate.lookup(&zero);
    if (closed && *closed)
        return 0;
    void *skb = args->skbaddr;
    void *dev = 0;
    void *prog = 0;
    bpf_probe_read_kernel(&dev, sizeof dev, (char *)skb + OFF_SKB_DEV);
    if (!dev)
        return 0;
    bpf_probe_read_kernel(&prog, sizeof prog, (char *)dev + OFF_DEV_XDP_PROG);
    if (!prog)
        return 0; /* no generic XDP program on this device */
    struct skb_view v = {};
    if (skb_view_read(skb, &v) || v.redirected)
        return 0; /* the kernel passes redirected skbs without running the program */
    int copy = xdp_copy_needed(&v);

    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;
    if (copy) {
        st->xdp_copied++;
        st->xdp_copied_bytes += args->len;
    } else {
        st->xdp_passed++;
    }
    return 0;
}

#endif /* XDP_MODE_TRACEPOINT */
