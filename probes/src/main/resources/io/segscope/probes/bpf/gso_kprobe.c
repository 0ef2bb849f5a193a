/*
 * segscope, kprobe and fentry modes: TX software segmentation measured at the function that does it.
 * Compiled in with -DGSO_MODE_KPROBE (kprobe/kretprobe) or -DGSO_MODE_FENTRY (fentry/fexit); the
 * two flavours share everything but the entry points at the bottom.
 *
 * One software segmentation = one call of __skb_gso_segment(skb, features, tx_path) with tx_path
 * true (validate_xmit_skb's skb_gso_segment, and the other TX callers: ip_finish_output_gso, tbf, ...).
 *   entry: per-CPU slot {time, skb, egress device = skb->dev, len, gso_segs/type, checksum state}
 *   exit:  ERR_PTR or NULL -> a diagnostic, not a segmentation; otherwise count it on the device:
 *          skbs, segments, bytes (len at entry), duration (exit - entry), cause (gso_cause, the same
 *          logic as tracepoint mode).
 * The caller runs with bottom halves disabled, so entry and exit of one call happen on one CPU with
 * no other TX segmentation in between: a per-CPU slot is enough (no hash map, no key).
 *
 * Segments: the original skb's gso_segs, set by the stack for locally generated TCP/UDP and GRO'd
 * skbs. Only when it is 0 (SKB_GSO_DODGY skbs from virtio/tap) is the returned list walked, at most
 * GSO_WALK_MAX steps: walking costs one probe read per segment, which for 45 segments would add more
 * than a tenth of the segmentation's own cost, for a number the skb already carries.
 *
 * Offloaded super-packets: net:net_dev_start_xmit with gso_size > 0, on skb->dev (no correlation
 * needed in these modes).
 */
#if defined(GSO_MODE_KPROBE) || defined(GSO_MODE_FENTRY)

#define GSO_WALK_MAX 64
#define SEG_MAX_ERRNO 4095

struct gso_call {
    u64 ts;          /* entry time, ns; 0 = slot empty */
    void *skb;
    void *dev;       /* egress net_device */
    u32 len;
    u16 gso_segs;
    u16 protocol;
    u32 gso_type;
    u8 ip_summed;
    u8 encapsulation;
};

BPF_PERCPU_ARRAY(gso_call_slot, struct gso_call, 1);

static __always_inline int gso_enter(void *skb, u64 tx_path)
{
    int zero = 0;
    struct gso_call *c = gso_call_slot.lookup(&zero);
    if (!c)
        return 0;
    c->ts = 0;
    if (!(tx_path & 0xff)) /* bool argument: only the low byte is defined */
        return 0;
    struct skb_view v = {};
    struct gso_info g = {};
    if (skb_view_read(skb, &v) || gso_info_read(&v, &g) || !v.dev)
        return 0;
    c->skb = skb;
    c->dev = v.dev;
    c->len = v.len;
    c->gso_segs = g.gso_segs;
    c->gso_type = g.gso_type;
    c->protocol = v.protocol;
    c->ip_summed = v.ip_summed;
    c->encapsulation = v.encapsulation;
    c->ts = bpf_ktime_get_ns();
    return 0;
}

/* Segments in the returned list, for skbs that did not carry gso_segs. */
static __always_inline u32 gso_count_list(void *segs)
{
    u32 n = 0;
    void *p = segs;
#pragma unroll
    for (int i = 0; i < GSO_WALK_MAX; i++) {
        if (!p)
            break;
        n++;
        if (bpf_probe_read_kernel(&p, sizeof p, (char *)p + OFF_SKB_NEXT))
            break;
    }
    return n;
}

/* skb: the argument when the exit sees it (fexit), 0 when it does not (kretprobe). */
static __always_inline int gso_exit(void *skb, u64 ret)
{
    u64 now = bpf_ktime_get_ns();
    int zero = 0;
    struct gso_call *c = gso_call_slot.lookup(&zero);
    if (!c || c->ts == 0)
        return 0; /* not a TX call, or entered before the probes attached */
    struct gso_call f = *c;
    c->ts = 0;
    if (skb && skb != f.skb)
        return 0;
    if (ret == 0) {
        diag_inc(DIAG_GSO_NULL);
        return 0;
    }
    if (ret >= (u64)-SEG_MAX_ERRNO) {
        diag_inc(DIAG_GSO_ERROR);
        return 0;
    }
    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(f.dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;
    u32 segs = f.gso_segs ? f.gso_segs : gso_count_list((void *)ret);
    st->sw_skbs++;
    st->sw_segs += segs;
    st->sw_bytes += f.len;
    HIST_INC(st->seg, SEG_SLOTS, segs);
    if (now >= f.ts) {
        u64 d = now - f.ts;
        st->sw_timed++;
        st->sw_ns += d;
        HIST_INC(st->dur, DUR_SLOTS, d);
    }
    COUNT_AT(st->cause, CAUSES,
             gso_cause(f.dev, &dv, f.len, f.gso_segs, f.gso_type, f.ip_summed, f.encapsulation, f.protocol));
    return 0;
}

#ifdef GSO_MODE_FENTRY
KFUNC_PROBE(__skb_gso_segment, void *skb, u64 features, u64 tx_path)
{
    return gso_enter(skb, tx_path);
}

KRETFUNC_PROBE(__skb_gso_segment, void *skb, u64 features, u64 tx_path, void *ret)
{
    return gso_exit(skb, (u64)ret);
}
#else
int kprobe____skb_gso_segment(struct pt_regs *ctx)
{
    return gso_enter((void *)PT_REGS_PARM1(ctx), PT_REGS_PARM3(ctx));
}

int kretprobe____skb_gso_segment(struct pt_regs *ctx)
{
    return gso_exit(0, PT_REGS_RC(ctx));
}
#endif

TRACEPOINT_PROBE(net, net_dev_start_xmit)
{
    if (args->gso_size == 0)
        return 0;
    void *dev = 0;
    bpf_probe_read_kernel(&dev, sizeof dev, (char *)args->skbaddr + OFF_SKB_DEV);
    if (!dev)
        return 0;
    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;
    st->off_skbs++;
    st->off_bytes += args->len;
    return 0;
}

#endif /* GSO_MODE_KPROBE || GSO_MODE_FENTRY */
