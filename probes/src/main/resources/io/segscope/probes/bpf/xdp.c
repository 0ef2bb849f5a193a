/*
 * segscope: generic (skb-mode) XDP copies.
 *
 * Tracepoint mode (-DXDP_MODE_TRACEPOINT): no tracepoint sits on the generic-XDP path. net:netif_receive_skb
 * fires in __netif_receive_skb_core right before do_xdp_generic; on a device whose net_device.xdp_prog
 * is set (a generic XDP program), the skb's shape there decides, by the kernel's own predicate
 * (xdp_copy_needed), whether it will be copied. Counted, not timed. The agent attaches this program
 * only while some device has a generic XDP program (it fires for every received packet).
 *
 * kprobe / fentry modes (-DXDP_MODE_KPROBE / -DXDP_MODE_FENTRY): counted AND timed.
 *   do_xdp_generic(prog, skb) entry      (>= 6.9: do_xdp_generic(prog, struct sk_buff **pskb),
 *                                          XDP_GENERIC_PSKB=1): prog set, skb not redirected ->
 *                                          per-CPU slot {time, skb, device, len, copy predicate}
 *   bpf_prog_run_generic_xdp(skb) entry  (>= 5.15): the copy, if any, is done: copied (time = now - slot
 *                                          time) or passed.
 */
#if defined(XDP_MODE_TRACEPOINT) || defined(XDP_MODE_KPROBE) || defined(XDP_MODE_FENTRY)

/*
 * Whether generic XDP will copy/linearize this skb, evaluated where skb->data is at the network header:
 *     cloned-and-shared || nonlinear || headroom < XDP_PACKET_HEADROOM
 * headroom = data - head before 6.9; from 6.9 the kernel measures it after pushing the MAC header, i.e.
 * the MAC header offset (XDP_HEADROOM_AFTER_MAC_PUSH). Redirected skbs are passed by the kernel without
 * running the program: callers skip them.
 */
static __always_inline int xdp_copy_needed(struct skb_view *v)
{
    u64 headroom = (u64)v->data - (u64)v->head;
#if XDP_HEADROOM_AFTER_MAC_PUSH
    if (v->mac_header != 0xffff)
        headroom = v->mac_header;
#endif
    if (v->data_len != 0 || headroom < SEG_XDP_PACKET_HEADROOM)
        return 1;
    if (v->cloned) {
        void *shinfo = skb_shinfo_of(v);
        u32 dataref = 0;
        if (shinfo)
            bpf_probe_read_kernel(&dataref, sizeof dataref, (char *)shinfo + OFF_SHINFO_DATAREF);
        return (dataref & 0xffff) != 1;
    }
    return 0;
}

static __always_inline struct dev_counts *xdp_counts(void *dev, struct dev_view *d, struct dev_key *key)
{
    dev_key_of(d, key);
    return counts_for(dev, key);
}

#ifdef XDP_MODE_TRACEPOINT
static __always_inline void received_body(void *dev, struct skb_view *s, struct dev_view *d)
{
    if (s->redirected)
        return; /* the kernel passes redirected skbs without running the program */
    struct dev_key key = {};
    struct dev_counts *c = xdp_counts(dev, d, &key);
    if (!c)
        return;
    if (xdp_copy_needed(s)) {
        c->xdp_copied++;
        c->xdp_copied_bytes += s->len;
    } else {
        c->xdp_passed++;
        c->xdp_passed_bytes += s->len;
    }
}

#ifdef TP_ATTACH_BTF
int tp_btf__netif_receive_skb(u64 *ctx)
{
    void *skb = (void *)ctx[0];
    void *dev = LD(void *, skb, OFF_SKB_DEV);
    if (!dev || !LD(void *, dev, OFF_DEV_XDP_PROG))
        return 0; /* no generic XDP program on this device */
    struct skb_view s = {};
    struct dev_view d = {};
    skb_view_btf(skb, &s);
    dev_view_btf(dev, &d);
    received_body(dev, &s, &d);
    return 0;
}
#else
static __always_inline int netif_receive_skb_probe(void *skb)
{
    struct skb_view s = {};
    struct dev_view d = {};
    if (skb_view_probe(skb, &s) || dev_view_probe(s.dev, &d) || !d.xdp_prog)
        return 0;
    received_body(s.dev, &s, &d);
    return 0;
}
#ifdef TP_ATTACH_RAW
int raw_tp__netif_receive_skb(struct bpf_raw_tracepoint_args *ctx)
{
    return netif_receive_skb_probe((void *)ctx->args[0]);
}
#else
int tp__netif_receive_skb(void *ctx)
{
    return netif_receive_skb_probe(TP_ARG(ctx, netif_receive_skb, skbaddr, void *));
}
#endif
#endif /* TP_ATTACH_BTF */
#endif /* XDP_MODE_TRACEPOINT */

#if defined(XDP_MODE_KPROBE) || defined(XDP_MODE_FENTRY)
BPF_F_TABLE("hash", struct dev_key, struct xdp_detail, xdp_detail, MAX_DEVICES, MAP_FLAGS);
BPF_PERCPU_ARRAY(zero_xdp_detail, struct xdp_detail, 1);

struct xdp_call {
    u64 ts;      /* do_xdp_generic entry, ns; 0 = slot empty */
    void *skb;
    void *dev;
    struct dev_view d;
    u32 len;
    u32 copy;    /* the kernel's copy predicate at entry */
};
BPF_PERCPU_ARRAY(xdp_call_slot, struct xdp_call, 1);

static __always_inline struct xdp_call *xdp_slot(void)
{
    int zero = 0;
    return xdp_call_slot.lookup(&zero);
}

static __always_inline void xdp_enter(struct xdp_call *c, void *skb, struct skb_view *s)
{
    if (s->redirected) {
        c->ts = 0;
        return;
    }
    c->skb = skb;
    c->dev = s->dev;
    c->len = s->len;
    c->copy = xdp_copy_needed(s);
    c->ts = bpf_ktime_get_ns();
}

static __always_inline struct xdp_detail *xdp_detail_for(void *dev, struct dev_key *key)
{
    struct xdp_detail *d = xdp_detail.lookup(key);
    if (d)
        return d;
    int zero = 0;
    struct xdp_detail *init = zero_xdp_detail.lookup(&zero);
    if (!init)
        return 0;
    bpf_probe_read_kernel(&init->name, sizeof init->name, (char *)dev + OFF_DEV_NAME);
    xdp_detail.insert(key, init);
    d = xdp_detail.lookup(key);
    if (!d)
        diag_inc(DIAG_DETAIL_FULL);
    return d;
}

static __always_inline int xdp_run(void *skb)
{
    u64 now = bpf_ktime_get_ns();
    struct xdp_call *c = xdp_slot();
    if (!c || c->ts == 0)
        return 0;
    u64 ts = c->ts;
    c->ts = 0;
    if (!c->copy && skb != c->skb)
        return 0; /* not the skb whose entry we saw (a copy may replace the skb from 6.9 on) */
    struct dev_key key = {};
    struct dev_counts *cnt = xdp_counts(c->dev, &c->d, &key);
    if (!cnt)
        return 0;
    if (!c->copy) {
        cnt->xdp_passed++;
        cnt->xdp_passed_bytes += c->len;
        return 0;
    }
    cnt->xdp_copied++;
    cnt->xdp_copied_bytes += c->len;
    struct xdp_detail *det = xdp_detail_for(c->dev, &key);
    if (det && now >= ts) {
        u64 d = now - ts;
        __sync_fetch_and_add(&det->timed, 1);
        __sync_fetch_and_add(&det->timed_ns, d);
        ATOMIC_INC_AT(det->dur, DUR_SLOTS, dur_slot(d));
    }
    return 0;
}

#ifdef XDP_MODE_FENTRY
KFUNC_PROBE(do_xdp_generic, void *prog, void *arg)
{
    struct xdp_call *c = xdp_slot();
    if (!c)
        return 0;
    c->ts = 0;
    if (!prog)
        return 0;
    void *skb = arg;
#if XDP_GENERIC_PSKB
    skb = 0;
    bpf_probe_read_kernel(&skb, sizeof skb, arg);
#endif
    if (!skb)
        return 0;
    struct skb_view s = {};
    skb_view_btf(skb, &s);
    if (dev_view_btf(s.dev, &c->d))
        return 0;
    xdp_enter(c, skb, &s);
    return 0;
}

KFUNC_PROBE(bpf_prog_run_generic_xdp, void *skb)
{
    return xdp_run(skb);
}
#else
int kprobe__do_xdp_generic(struct pt_regs *ctx)
{
    struct xdp_call *c = xdp_slot();
    if (!c)
        return 0;
    c->ts = 0;
    void *prog = (void *)PT_REGS_PARM1(ctx);
    void *skb = (void *)PT_REGS_PARM2(ctx);
    if (!prog || !skb)
        return 0;
#if XDP_GENERIC_PSKB
    void *p = skb;
    skb = 0;
    bpf_probe_read_kernel(&skb, sizeof skb, p);
    if (!skb)
        return 0;
#endif
    struct skb_view s = {};
    if (skb_view_probe(skb, &s) || dev_view_probe(s.dev, &c->d))
        return 0;
    xdp_enter(c, skb, &s);
    return 0;
}

int kprobe__bpf_prog_run_generic_xdp(struct pt_regs *ctx)
{
    return xdp_run((void *)PT_REGS_PARM1(ctx));
}
#endif
#endif /* XDP_MODE_KPROBE || XDP_MODE_FENTRY */
#endif /* any XDP mode */
