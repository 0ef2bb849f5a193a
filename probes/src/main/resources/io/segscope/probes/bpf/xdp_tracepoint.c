/*
 * segscope, tracepoint mode: generic (skb-mode) XDP copies.
 *
 * There is no tracepoint on the generic-XDP path itself (kernel-facts.md §2). net:netif_receive_skb
 * fires in __netif_receive_skb_core right before do_xdp_generic, so on a device with a generic XDP
 * program (net_device.xdp_prog set) the skb's shape there decides, by the kernel's own predicate,
 * whether it will be copied/linearized:
 *     !redirected && (cloned-and-shared || nonlinear || headroom < XDP_PACKET_HEADROOM)
 * This mode counts copies and bytes; it cannot time them (the kprobe/fentry modes do).
 *
 * Inputs (-D): common.h offsets plus OFF_DEV_XDP_PROG, OFF_SKB_REDIRECTED_BYTE/SKB_REDIRECTED_SHIFT/
 * SKB_REDIRECTED_MASK (absent on kernels without skb->redirected), XDP_HEADROOM_AFTER_MAC_PUSH (1 on
 * kernels with the 6.9 page_pool path, where the headroom is measured after pushing the MAC header).
 */
#define SEG_XDP_PACKET_HEADROOM 256

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
#ifdef OFF_SKB_REDIRECTED_BYTE
    if (skb_bits(skb, OFF_SKB_REDIRECTED_BYTE, SKB_REDIRECTED_SHIFT, SKB_REDIRECTED_MASK))
        return 0; /* the kernel passes redirected skbs without running the program */
#endif
    u32 data_len = 0;
    void *head = 0, *data = 0;
    u16 mac_header = 0;
    bpf_probe_read_kernel(&data_len, sizeof data_len, (char *)skb + OFF_SKB_DATA_LEN);
    bpf_probe_read_kernel(&head, sizeof head, (char *)skb + OFF_SKB_HEAD);
    bpf_probe_read_kernel(&data, sizeof data, (char *)skb + OFF_SKB_DATA);
    u64 headroom = (u64)data - (u64)head;
#if XDP_HEADROOM_AFTER_MAC_PUSH
    bpf_probe_read_kernel(&mac_header, sizeof mac_header, (char *)skb + OFF_SKB_MAC_HEADER);
    if (mac_header != 0xffff)
        headroom = mac_header;
#endif
    int copy = data_len != 0 || headroom < SEG_XDP_PACKET_HEADROOM;
    if (!copy && skb_bits(skb, OFF_SKB_CLONED_BYTE, SKB_CLONED_SHIFT, SKB_CLONED_MASK)) {
        void *shinfo = skb_shinfo_of(skb);
        u32 dataref = 0;
        if (shinfo)
            bpf_probe_read_kernel(&dataref, sizeof dataref, (char *)shinfo + OFF_SHINFO_DATAREF);
        copy = (dataref & 0xffff) != 1;
    }

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
