/*
 * segscope, tracepoint mode: TX software segmentation, for kernels without kprobes/fentry.
 *
 * Per skb A leaving device D, in the kernel's own order (kernel-facts.md §4):
 *   net:net_dev_queue(A)           A is a GSO super-packet (gso_size > 0): remember it (time, device)
 *   [qdisc:qdisc_dequeue(A)]       the device queues: segmentation starts after the dequeue
 *   skb:consume_skb(A, location in validate_xmit_skb*)   segmented in software: count, time, cause
 *   net:net_dev_start_xmit(A, gso_size > 0)              handed intact to the driver: offloaded
 * Everything is aggregated here; nothing per packet goes to user space.
 *
 * Compile-time inputs (-D): the BTF offsets of common.h, plus VXS_START0/VXS_END0 (and optionally
 * VXS_START1/VXS_END1): the address ranges of validate_xmit_skb and its renamed clones from kallsyms.
 * Compiled in with -DGSO_MODE_TRACEPOINT.
 */
#ifdef GSO_MODE_TRACEPOINT

struct inflight {
    u64 ts;          /* net_dev_queue or qdisc_dequeue time, ns */
    void *dev;       /* egress net_device */
    u32 cpu;         /* CPU of that event: only same-CPU intervals are timed */
    u32 len;
    u16 gso_size;
    u16 gso_segs;
    u32 gso_type;
    u16 protocol;
    u8 ip_summed;
    u8 encapsulation;
};

/* GSO skbs between net_dev_queue and their fate; LRU so skbs dropped on the way cannot leak entries. */
/* BPF_F_NO_COMMON_LRU (2): per-CPU LRU lists, no global lock on the hot path. */
BPF_F_TABLE("lru_hash", u64, struct inflight, gso_inflight, 65536, 2);

static __always_inline int in_validate_xmit_skb(u64 loc)
{
    if (loc >= VXS_START0 && loc < VXS_END0)
        return 1;
#ifdef VXS_START1
    if (loc >= VXS_START1 && loc < VXS_END1)
        return 1;
#endif
    return 0;
}

TRACEPOINT_PROBE(net, net_dev_queue)
{
    void *skb = args->skbaddr;
    struct skb_view v = {};
    struct gso_info g = {};
    if (skb_view_read(skb, &v) || gso_info_read(&v, &g) || g.gso_size == 0 || !v.dev)
        return 0; /* not a super-packet */

    struct inflight f = {};
    f.ts = bpf_ktime_get_ns();
    f.cpu = bpf_get_smp_processor_id();
    f.len = args->len;
    f.gso_size = g.gso_size;
    f.gso_segs = g.gso_segs;
    f.gso_type = g.gso_type;
    f.dev = v.dev;
    f.protocol = v.protocol;
    f.ip_summed = v.ip_summed;
    f.encapsulation = v.encapsulation;
    u64 a = (u64)skb;
    gso_inflight.update(&a, &f);
    return 0;
}

TRACEPOINT_PROBE(qdisc, qdisc_dequeue)
{
    u64 a = (u64)args->skbaddr;
    if (!a)
        return 0;
    struct inflight *f = gso_inflight.lookup(&a);
    if (f) {
        f->ts = bpf_ktime_get_ns();
        f->cpu = bpf_get_smp_processor_id();
    }
    return 0;
}

TRACEPOINT_PROBE(skb, consume_skb)
{
    if (!in_validate_xmit_skb((u64)args->location))
        return 0;
    u64 now = bpf_ktime_get_ns();
    u32 cpu = bpf_get_smp_processor_id();
    u64 a = (u64)args->skbaddr;
    struct inflight *fp = gso_inflight.lookup(&a);
    if (!fp) {
        diag_inc(DIAG_SEGMENTED_UNTRACKED);
        return 0;
    }
    struct inflight f = *fp;
    gso_inflight.delete(&a);

    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(f.dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;

    u32 segs = f.gso_segs;
    if (segs == 0 && f.gso_size) /* DODGY skbs may carry 0: estimate from the length */
        segs = (f.len + f.gso_size - 1) / f.gso_size;
    st->sw_skbs++;
    st->sw_segs += segs;
    st->sw_bytes += f.len;
    HIST_INC(st->seg, SEG_SLOTS, segs);
    if (f.cpu == cpu && now >= f.ts) {
        u64 d = now - f.ts;
        st->sw_timed++;
        st->sw_ns += d;
        HIST_INC(st->dur, DUR_SLOTS, d);
    } else {
        diag_inc(DIAG_SEGMENTED_OTHER_CPU);
    }
    COUNT_AT(st->cause, CAUSES,
             gso_cause(f.dev, &dv, f.len, f.gso_segs, f.gso_type, f.ip_summed, f.encapsulation, f.protocol));
    return 0;
}

TRACEPOINT_PROBE(net, net_dev_start_xmit)
{
    if (args->gso_size == 0)
        return 0;
    u64 a = (u64)args->skbaddr;
    struct inflight *fp = gso_inflight.lookup(&a);
    if (!fp)
        return 0;
    void *dev = fp->dev;
    u32 len = fp->len;
    gso_inflight.delete(&a);

    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;
    st->off_skbs++;
    st->off_bytes += len;
    return 0;
}

#endif /* GSO_MODE_TRACEPOINT */
