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

TRACEPOINT_PROBE(net, netif_receive_skb)
{
    void *skb = args->skbaddr;
    void *dev = 0;
    void *prog = 0;
    bpf_probe_read_kernel(&dev, sizeof dev, (char *)skb + OFF_SKB_DEV);
    if (!dev)
        return 0;
    bpf_probe_read_kernel(&prog, sizeof prog, (char *)dev + OFF_DEV_XDP_PROG);
    if (!prog)
        return 0; /* no generic XDP program on this device */
    if (skb_redirected(skb))
        return 0; /* the kernel passes redirected skbs without running the program */
    int copy = xdp_copy_needed(skb);

    struct dev_key key = {};
    if (dev_key_of(dev, &key))
        return 0;
    struct dev_stats *st = stats_for(dev, &key);
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
