/*
 * segscope, kprobe and fentry modes: generic (skb-mode) XDP copies, counted AND timed.
 * Compiled in with -DXDP_MODE_KPROBE or -DXDP_MODE_FENTRY.
 *
 *   do_xdp_generic(prog, skb) entry      (>= 6.9: do_xdp_generic(prog, struct sk_buff **pskb),
 *                                          XDP_GENERIC_PSKB=1): prog set and skb not redirected ->
 *                                          per-CPU slot {time, skb, device, len, copy predicate}
 *   bpf_prog_run_generic_xdp(skb) entry  (>= 5.15): the copy, if any, is done: count copied (bytes =
 *                                          len at entry, time = now - slot time) or passed.
 * Between the two the kernel only checks skb->redirected, evaluates the predicate and copies
 * (pskb_expand_head + skb_linearize, or from 6.9 a page_pool copy that replaces the skb: then the
 * pointer seen here differs from the slot's). A copy that fails drops the skb: the program never
 * runs, the slot is overwritten by the next call, nothing is counted. cpumap runs
 * bpf_prog_run_generic_xdp without do_xdp_generic: an empty slot, ignored.
 * Everything runs in softirq context on one CPU, so a per-CPU slot pairs the two.
 */
#if defined(XDP_MODE_KPROBE) || defined(XDP_MODE_FENTRY)

struct xdp_call {
    u64 ts;      /* do_xdp_generic entry, ns; 0 = slot empty */
    void *skb;
    void *dev;
    u32 len;
    u32 copy;    /* the kernel's copy predicate at entry */
};

BPF_PERCPU_ARRAY(xdp_call_slot, struct xdp_call, 1);

static __always_inline int xdp_enter(void *prog, void *arg)
{
    int zero = 0;
    struct xdp_call *c = xdp_call_slot.lookup(&zero);
    if (!c)
        return 0;
    c->ts = 0;
    if (!prog)
        return 0; /* the device has no generic XDP program */
    void *skb = arg;
#if XDP_GENERIC_PSKB
    skb = 0;
    bpf_probe_read_kernel(&skb, sizeof skb, arg);
#endif
    struct skb_view v = {};
    if (!skb || skb_view_read(skb, &v) || v.redirected || !v.dev)
        return 0;
    c->skb = skb;
    c->dev = v.dev;
    c->len = v.len;
    c->copy = xdp_copy_needed(&v);
    c->ts = bpf_ktime_get_ns();
    return 0;
}

static __always_inline int xdp_run(void *skb)
{
    u64 now = bpf_ktime_get_ns();
    int zero = 0;
    struct xdp_call *c = xdp_call_slot.lookup(&zero);
    if (!c || c->ts == 0)
        return 0;
    struct xdp_call f = *c;
    c->ts = 0;
    if (!f.copy && skb != f.skb)
        return 0; /* not the skb whose entry we saw */
    struct dev_view dv = {};
    struct dev_key key = {};
    if (dev_view_read(f.dev, &dv) || dev_key_of(&dv, &key))
        return 0;
    struct dev_stats *st = stats_for(&dv, &key);
    if (!st)
        return 0;
    if (f.copy) {
        st->xdp_copied++;
        st->xdp_copied_bytes += f.len;
        if (now >= f.ts) {
            u64 d = now - f.ts;
            st->xdp_timed++;
            st->xdp_ns += d;
            HIST_INC(st->xdp_dur, DUR_SLOTS, d);
        }
    } else {
        st->xdp_passed++;
    }
    return 0;
}

#ifdef XDP_MODE_FENTRY
KFUNC_PROBE(do_xdp_generic, void *prog, void *skb)
{
    return xdp_enter(prog, skb);
}

KFUNC_PROBE(bpf_prog_run_generic_xdp, void *skb)
{
    return xdp_run(skb);
}
#else
int kprobe__do_xdp_generic(struct pt_regs *ctx)
{
    return xdp_enter((void *)PT_REGS_PARM1(ctx), (void *)PT_REGS_PARM2(ctx));
}

int kprobe__bpf_prog_run_generic_xdp(struct pt_regs *ctx)
{
    return xdp_run((void *)PT_REGS_PARM1(ctx));
}
#endif

#endif /* XDP_MODE_KPROBE || XDP_MODE_FENTRY */
