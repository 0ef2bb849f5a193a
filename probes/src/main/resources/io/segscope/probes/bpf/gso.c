/*
 * segscope: TX software segmentation and the fate of every GSO super-packet, in every mode.
 *
 * Two kinds of program (ProgramSpec says which is which; docs/probing.md what each costs):
 *   COUNTING, always attached: one per mode on the event where a super-packet's fate is decided. It
 *   counts exactly (super-packets, segments, bytes, cause, site, type) with one per-CPU map operation.
 *   TIMING, attached only in sampling windows (a few seconds in every cycle while software segmentation
 *   was seen recently; always with --timing-window always): the start stamps and the queued count.
 *
 * Every mode (when the gso_tx path is measured):
 *   net:net_dev_queue(skb)             TIMING. A GSO super-packet queued on skb->dev: gso_queued (the
 *                                      reader derives "offloaded" from the windows) and a per-CPU start
 *                                      stamp {skb, time} (tracepoint mode times from it; kprobe/fentry
 *                                      modes use it to tell a segmentation after the queue)
 *   skb:kfree_skb(skb, location)       COUNTING. A GSO super-packet dropped on the transmit path before
 *                                      the driver (location in the TX functions): gso_tx_dropped; or, at
 *                                      tbf's enqueue, the original of a super-packet tbf segmented and
 *                                      whose every segment it dropped: a segmentation (tracepoint mode)
 * Tracepoint mode (no kprobes/fentry):
 *   skb:consume_skb(skb, location)     COUNTING. location inside a function that segments
 *                                      (validate_xmit_skb, ip_finish_output_gso, tbf/cake/netem/taprio,
 *                                      xfrm, udp rx, ...) and the skb still a super-packet: it was just
 *                                      segmented in software there and the original is freed. Count,
 *                                      site, cause, and (in a window) the time since the stamp.
 *   qdisc:qdisc_dequeue(.., skb)       TIMING. The stamp moves to the dequeue on queued devices.
 * kprobe mode:
 *   __skb_gso_segment entry            COUNTING (the kretprobe: TIMING)
 * fentry mode:
 *   __skb_gso_segment exit             COUNTING (the fentry program: TIMING)
 * No program runs per segment.
 *
 * Entry points exist per attach type: TP_ATTACH_BTF (tp_btf: BTF-typed args, plain loads),
 * TP_ATTACH_RAW (raw_tp: probe reads) or TP_ATTACH_CLASSIC (classic tracepoints, BCC's args struct).
 */
#if defined(GSO_MODE_TRACEPOINT) || defined(GSO_MODE_KPROBE) || defined(GSO_MODE_FENTRY)

/*
 * The last GSO super-packet queued (or dequeued) on this CPU and when: pairs queue and segmentation.
 * Written only by the timing programs; the agent zeroes it when a window closes, so a stale stamp never
 * times a later skb at the same address.
 */
struct xmit_start {
    void *skb;
    u64 ts;
};
BPF_PERCPU_ARRAY(xmit_start_slot, struct xmit_start, 1);

static __always_inline void queued_body(void *skb, void *dev, struct skb_view *s, struct dev_view *d)
{
    struct gso_info g = {};
    if (gso_info_read(s, &g) || !g.gso_size)
        return;
    count_queued(dev, d, s);
    int zero = 0;
    struct xmit_start *st = xmit_start_slot.lookup(&zero);
    if (st) {
        st->skb = skb;
        st->ts = bpf_ktime_get_ns();
    }
}

#ifdef GSO_MODE_TRACEPOINT
static __always_inline void consumed_body(void *skb, u32 site, struct skb_view *s, struct dev_view *d)
{
    struct gso_info g = {};
    if (gso_info_read(s, &g) || !g.gso_size)
        return; /* not a super-packet: freed there for another reason */
    u64 duration = ~0ULL;
    int zero = 0;
    struct xmit_start *st = xmit_start_slot.lookup(&zero);
    if (st && st->skb == skb) {
        u64 now = bpf_ktime_get_ns();
        if (now >= st->ts)
            duration = now - st->ts;
        st->skb = 0;
    } else if (timing_open()) {
        diag_inc(DIAG_SEGMENTED_UNTIMED); /* in a window, its start was not seen on this CPU */
    }
    count_segmentation(s->dev, d, s, &g, segments_of(skb, s, &g), site, duration);
}

static __always_inline void dequeued_body(void *skb)
{
    int zero = 0;
    struct xmit_start *st = xmit_start_slot.lookup(&zero);
    if (st) {
        st->skb = skb;
        st->ts = bpf_ktime_get_ns();
    }
}

#endif

/*
 * A GSO super-packet freed with kfree_skb at location loc, kind = tx_drop_site(loc): dropped on the
 * transmit path before the driver (TX_DROP), or (TX_DROP_AFTER_SEGMENTING) the original of a
 * super-packet a qdisc segmented and whose every segment it then dropped (tbf_segment): a segmentation
 * like the consume_skb of the same call site. kprobe/fentry counted that one at __skb_gso_segment's exit.
 */
static __always_inline void tx_drop_body(void *skb, u32 kind, u64 loc, struct skb_view *s, struct dev_view *d)
{
    if (kind == TX_DROP_AFTER_SEGMENTING) {
#ifdef GSO_MODE_TRACEPOINT
        u32 site = site_of(loc);
        if (site != SITES)
            consumed_body(skb, site, s, d);
#endif
        return;
    }
    struct gso_info g = {};
    if (gso_info_read(s, &g) || !g.gso_size)
        return;
    count_tx_drop(s->dev, d);
}

#ifdef TP_ATTACH_BTF
int tp_btf__net_dev_queue(u64 *ctx)
{
    void *skb = (void *)ctx[0];
    void *dev = LD(void *, skb, OFF_SKB_DEV);
    if (!dev)
        return 0;
    /* small linear packets (ACKs) are no super-packets: skip them before the shared-info read */
    if (LD(u32, skb, OFF_SKB_LEN) <= LD(u32, dev, OFF_DEV_MTU) && !LD(u32, skb, OFF_SKB_DATA_LEN))
        return 0;
    struct skb_view s = {};
    struct dev_view d = {};
    skb_view_btf(skb, &s);
    dev_view_btf_tx(dev, &d);
    queued_body(skb, dev, &s, &d);
    return 0;
}

int tp_btf__kfree_skb(u64 *ctx)
{
    u32 kind = tx_drop_site(ctx[1]);
    if (!kind)
        return 0;
    void *skb = (void *)ctx[0];
    struct skb_view s = {};
    struct dev_view d = {};
    skb_view_btf(skb, &s);
    if (dev_view_btf_tx(s.dev, &d))
        return 0;
    tx_drop_body(skb, kind, ctx[1], &s, &d);
    return 0;
}
#else
static __always_inline int net_dev_queue_probe(void *skb)
{
    struct skb_view s = {};
    struct dev_view d = {};
    if (skb_view_probe(skb, &s) || dev_view_probe(s.dev, &d))
        return 0;
    if (s.len <= d.mtu && !s.data_len)
        return 0;
    queued_body(skb, s.dev, &s, &d);
    return 0;
}

static __always_inline int kfree_skb_probe(void *skb, u64 location)
{
    u32 kind = tx_drop_site(location);
    if (!kind)
        return 0;
    struct skb_view s = {};
    struct dev_view d = {};
    if (skb_view_probe(skb, &s) || dev_view_probe(s.dev, &d))
        return 0;
    tx_drop_body(skb, kind, location, &s, &d);
    return 0;
}
#ifdef TP_ATTACH_RAW
int raw_tp__net_dev_queue(struct bpf_raw_tracepoint_args *ctx)
{
    return net_dev_queue_probe((void *)ctx->args[0]);
}

int raw_tp__kfree_skb(struct bpf_raw_tracepoint_args *ctx)
{
    return kfree_skb_probe((void *)ctx->args[0], ctx->args[1]);
}
#else
int tp__net_dev_queue(void *ctx)
{
    return net_dev_queue_probe(TP_ARG(ctx, net_dev_queue, skbaddr, void *));
}

int tp__kfree_skb(void *ctx)
{
    return kfree_skb_probe(TP_ARG(ctx, kfree_skb, skbaddr, void *), TP_ARG(ctx, kfree_skb, location, u64));
}
#endif
#endif /* TP_ATTACH_BTF */

/* ---- tracepoint mode: segmentation seen where the original super-packet is freed ---- */
#ifdef GSO_MODE_TRACEPOINT

#ifdef TP_ATTACH_BTF
int tp_btf__consume_skb(u64 *ctx)
{
    u32 site = site_of(ctx[1]);
    if (site == SITES)
        return 0;
    void *skb = (void *)ctx[0];
    struct skb_view s = {};
    struct dev_view d = {};
    skb_view_btf(skb, &s);
    if (dev_view_btf_tx(s.dev, &d))
        return 0;
    consumed_body(skb, site, &s, &d);
    return 0;
}

int tp_btf__qdisc_dequeue(u64 *ctx)
{
    dequeued_body((void *)ctx[3]);
    return 0;
}
#else
static __always_inline int consume_skb_probe(void *skb, u64 location)
{
    u32 site = site_of(location);
    if (site == SITES)
        return 0;
    struct skb_view s = {};
    struct dev_view d = {};
    if (skb_view_probe(skb, &s) || dev_view_probe(s.dev, &d))
        return 0;
    consumed_body(skb, site, &s, &d);
    return 0;
}
#ifdef TP_ATTACH_RAW
int raw_tp__consume_skb(struct bpf_raw_tracepoint_args *ctx)
{
    return consume_skb_probe((void *)ctx->args[0], ctx->args[1]);
}

int raw_tp__qdisc_dequeue(struct bpf_raw_tracepoint_args *ctx)
{
    dequeued_body((void *)ctx->args[3]);
    return 0;
}
#else
int tp__consume_skb(void *ctx)
{
    return consume_skb_probe(TP_ARG(ctx, consume_skb, skbaddr, void *), TP_ARG(ctx, consume_skb, location, u64));
}

int tp__qdisc_dequeue(void *ctx)
{
    dequeued_body(TP_ARG(ctx, qdisc_dequeue, skbaddr, void *));
    return 0;
}
#endif
#endif /* TP_ATTACH_BTF */
#endif /* GSO_MODE_TRACEPOINT */

/* ---- kprobe / fentry modes: __skb_gso_segment itself ---- */
#if defined(GSO_MODE_KPROBE) || defined(GSO_MODE_FENTRY)

#define GSO_WALK_MAX 64
#define GSO_STACK_FRAMES 4 /* kprobe mode: __skb_gso_segment's own frame(s), then its caller */
#define SEG_MAX_ERRNO 4095

/* Segments in the returned list, for skbs that carry no gso_segs. */
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

/*
 * The site of a return address w0 (w1: the word above it), classified like consume_skb locations. A return
 * address outside the core kernel's text that no range holds is a module's code that was not loaded when the
 * programs were compiled (wireguard.ko's wg_xmit when the first WireGuard device is created after the start, a
 * driver segmenting in its own xmit, a qdisc module): no module function is validate_xmit_skb, so the site is
 * "other", after the queue when this super-packet was the last one queued on this CPU. A kernel whose probe
 * leaves the return into __skb_gso_segment at sp has the caller one word above (w1). Where nothing resolves (a
 * stack layout not foreseen) the queue rule decides: the super-packet last queued on this CPU is segmented after
 * its queue (xmit), any other is "other".
 */
static __always_inline u32 return_address_site(u64 w0, u64 w1, int unread, u32 queued)
{
    u32 site = site_of(w0);
    if (site == SITES && !unread && w0 && !in_core_text(w0))
        return SITE_OTHER | queued;
    if (site == SITES)
        site = site_of(w1);
    if (site == SITES)
        site = queued ? (SITE_XMIT | SITE_AFTER_QUEUE) : SITE_OTHER;
    return site;
}

#define GSO_FENTRY_FRAMES 6 /* fentry: the program's and the trampoline's frames, __skb_gso_segment+5, its caller */
/*
 * The caller of __skb_gso_segment in the stack the kernel's unwinder gives an fentry program: the first frame
 * outside __skb_gso_segment that follows one inside it. The program's own frame and the BPF trampoline's come
 * first (JIT code, in no kallsyms range the programs were compiled with), then the trampoline's return into
 * __skb_gso_segment (+5: the patched call at its entry), then the caller. Measured in the Debian 6.1 guest
 * (bpftrace kfunc:__skb_gso_segment kstack, a veth with TSO off): bpf program, trampoline,
 * __skb_gso_segment+5, validate_xmit_skb+345, __dev_queue_xmit+515. 0 when the stack does not show it.
 */
static __always_inline u64 fentry_caller(const u64 *frames, long got)
{
    u64 caller = 0;
    int inside = 0;
#pragma unroll
    for (int i = 0; i < GSO_FENTRY_FRAMES; i++) {
        if (caller || got < (long)((i + 1) * sizeof(u64)) || !frames[i])
            continue;
        if (in_gso_segment(frames[i]))
            inside = 1;
        else if (inside)
            caller = frames[i];
    }
    return caller;
}

#ifdef GSO_MODE_FENTRY
/*
 * fentry mode: the fexit program is the COUNTING program (always attached; it runs only when something is
 * segmented): at the exit of __skb_gso_segment the original skb is intact (its headers pushed back), so it
 * counts exactly as tracepoint mode does at consume_skb, from BTF-typed loads. The fentry program is a
 * TIMING program (sampling windows only): it stamps {skb, time} for the exit to time.
 *
 * The caller comes from the BPF trampoline's frame, one probe read: the program's ctx is the trampoline's saved
 * arguments, and above them (x86-64, since 5.5) lie the return value's slot, the trampoline's saved rbp, its return
 * into __skb_gso_segment (the patched call at its entry: __skb_gso_segment+5, +9 after an endbr) and the return
 * into __skb_gso_segment's caller. The words above ctx are searched for the first one inside __skb_gso_segment;
 * the word after it is the caller. Only where no word is inside __skb_gso_segment (a trampoline laid out
 * otherwise), or the word after it is core text in no call site's range, does the program ask the unwinder
 * (bpf_get_stack: fentry_caller). The second case is another tool's kretprobe on __skb_gso_segment: it replaces
 * the return address with the rethook trampoline (measured in the Debian 6.1 guest beside the bpftrace oracle's
 * kretprobe: S6's 400 forwarded super-packets came out 268 "other" and 132 "xmit" from that word); the unwinder
 * puts the real return address back. Where neither shows it, a
 * segmentation of the super-packet last queued on this CPU (in a window) is taken to be after the queue (site
 * xmit) and others are "other".
 */
#define GSO_TRAMP_WORDS 6 /* read from ctx + 3 arguments: return value, rbp, return into __skb_gso_segment, caller, 2 more */
static __always_inline u64 trampoline_caller(void *ctx)
{
    u64 w[GSO_TRAMP_WORDS] = {};
    if (bpf_probe_read_kernel(&w, sizeof w, (char *)ctx + 3 * sizeof(u64)))
        return 0;
    u64 caller = 0;
    int inside = 0;
#pragma unroll
    for (int i = 0; i < GSO_TRAMP_WORDS; i++) {
        if (caller)
            continue;
        if (inside)
            caller = w[i];
        else if (in_gso_segment(w[i]))
            inside = 1;
    }
    return caller;
}

struct gso_stamp {
    void *skb;
    u64 ts;
};
BPF_PERCPU_ARRAY(gso_stamp_slot, struct gso_stamp, 1);

KFUNC_PROBE(__skb_gso_segment, void *skb, u64 features, u64 tx_path)
{
    int zero = 0;
    struct gso_stamp *st = gso_stamp_slot.lookup(&zero);
    if (st) {
        st->skb = skb;
        st->ts = bpf_ktime_get_ns();
    }
    return 0;
}

KRETFUNC_PROBE(__skb_gso_segment, void *skb, u64 features, u64 tx_path, void *ret)
{
    u64 r = (u64)ret;
    if (r == 0) {
        diag_inc(DIAG_GSO_NULL);
        return 0;
    }
    if (r >= (u64)-SEG_MAX_ERRNO) {
        diag_inc(DIAG_GSO_ERROR);
        return 0;
    }
    u64 duration = ~0ULL;
    int zero = 0;
    struct gso_stamp *st = gso_stamp_slot.lookup(&zero);
    if (st && st->skb == skb) {
        u64 now = bpf_ktime_get_ns();
        if (now >= st->ts)
            duration = now - st->ts;
        st->skb = 0;
    }
    struct skb_view s = {};
    struct dev_view d = {};
    skb_view_btf(skb, &s);
    if (dev_view_btf_tx(s.dev, &d))
        return 0;
    struct gso_info g = {};
    if (gso_info_read(&s, &g) || !g.gso_size)
        return 0;
    u64 caller = trampoline_caller(ctx);
    if (!caller || (site_of(caller) == SITES && in_core_text(caller))) {
        /* no caller in the frame, or core text in no call site's range: a kretprobe's rethook trampoline (another
         * tool's kretprobe on __skb_gso_segment replaces the return address) or a caller not foreseen */
        u64 frames[GSO_FENTRY_FRAMES] = {};
        long got = bpf_get_stack(ctx, frames, sizeof frames, 0);
        diag_inc(DIAG_CALLER_UNWOUND);
        u64 unwound = fentry_caller(frames, got);
        if (unwound)
            caller = unwound;
    }
    struct xmit_start *q = xmit_start_slot.lookup(&zero);
    u32 queued = q && q->skb == skb ? SITE_AFTER_QUEUE : 0;
    u32 site = caller ? return_address_site(caller, 0, 0, queued)
                      : (queued ? (SITE_XMIT | SITE_AFTER_QUEUE) : SITE_OTHER);
    u32 segs = g.gso_segs ? g.gso_segs : gso_count_list(ret);
    count_segmentation(s.dev, &d, &s, &g, segs, site, duration);
    return 0;
}
#else
/*
 * kprobe mode: the kprobe at __skb_gso_segment's entry is the COUNTING program (always attached; it runs only
 * when something is segmented): the skb is intact there (gso_size, gso_segs, len, dev), and the features the
 * caller passes are the device's, so it counts exactly as tracepoint mode does at consume_skb. The kretprobe is a
 * TIMING program (sampling windows only): it adds the time since the entry's stamp, which the entry writes only
 * while a window is open. A call that returns NULL or an error (rare: a GSO type no handler takes) is counted at
 * the entry all the same; in a window the exit counts it as a diagnostic (gso_null, gso_error). fentry mode counts
 * at the exit and so never counts those.
 *
 * The caller is the return address, the word at sp at the entry (an int3 kprobe, and 6.1's ftrace kprobe with no
 * kretprobe on the function: measured with bpftrace, wg_xmit+0x1e7 [wireguard]). A kretprobe on
 * __skb_gso_segment (segscope's own in a window, or another tool's) may replace that word with the rethook
 * trampoline before this program runs (measured in the Debian 6.1 guest: arch_rethook_trampoline in every call
 * while segscope's kretprobe was attached); the trampoline is core text in no call site's range, and then the
 * kernel's unwinder (bpf_get_stack: the first frame outside __skb_gso_segment), which puts the real return
 * address back, names the caller. So the stack is taken only in windows or beside another tool's kretprobe.
 */
struct gso_call {
    u64 ts;                /* entry time, ns; 0 = slot empty */
    void *skb;
    struct dev_key key;
};
BPF_PERCPU_ARRAY(gso_call_slot, struct gso_call, 1);

int kprobe____skb_gso_segment(struct pt_regs *ctx)
{
    void *skb = (void *)PT_REGS_PARM1(ctx);
    struct skb_view s = {};
    if (skb_view_probe(skb, &s))
        return 0;
    struct gso_info g = {};
    if (gso_info_read(&s, &g) || !g.gso_size)
        return 0;
    struct dev_view d = {};
    if (dev_view_probe_tx(s.dev, &d))
        return 0;
    u64 words[2] = {};
    int unread = bpf_probe_read_kernel(&words, sizeof words, (void *)PT_REGS_SP(ctx));
    int zero = 0;
    struct xmit_start *st = xmit_start_slot.lookup(&zero);
    u32 queued = st && st->skb == skb ? SITE_AFTER_QUEUE : 0;
    u32 site = unread ? SITES : site_of(words[0]);
    if (site == SITES) {
        if (!unread && words[0] && !in_core_text(words[0])) {
            site = SITE_OTHER | queued; /* a module's code */
        } else if (!unread && in_gso_segment(words[0])) {
            site = return_address_site(words[1], 0, 0, queued);
        } else {
            u64 frames[GSO_STACK_FRAMES] = {};
            long got = bpf_get_stack(ctx, frames, sizeof frames, 0);
            diag_inc(DIAG_CALLER_UNWOUND);
            u64 caller = 0;
#pragma unroll
            for (int i = 0; i < GSO_STACK_FRAMES; i++) {
                if (!caller && got >= (long)((i + 1) * sizeof(u64)) && frames[i] && !in_gso_segment(frames[i]))
                    caller = frames[i];
            }
            site = caller ? return_address_site(caller, 0, 0, queued)
                          : return_address_site(words[0], words[1], unread, queued);
        }
    }
    count_segmentation(s.dev, &d, &s, &g, segments_of(skb, &s, &g), site, ~0ULL);
    if (timing_open()) {
        struct gso_call *c = gso_call_slot.lookup(&zero);
        if (c) {
            c->skb = skb;
            dev_key_of(&d, &c->key);
            c->ts = bpf_ktime_get_ns();
        }
    }
    return 0;
}

int kretprobe____skb_gso_segment(struct pt_regs *ctx)
{
    u64 now = bpf_ktime_get_ns();
    int zero = 0;
    struct gso_call *c = gso_call_slot.lookup(&zero);
    if (!c || c->ts == 0)
        return 0;
    u64 ts = c->ts;
    c->ts = 0;
    u64 ret = PT_REGS_RC(ctx);
    if (ret == 0) {
        diag_inc(DIAG_GSO_NULL);
        return 0;
    }
    if (ret >= (u64)-SEG_MAX_ERRNO) {
        diag_inc(DIAG_GSO_ERROR);
        return 0;
    }
    count_duration(&c->key, now >= ts ? now - ts : ~0ULL);
    return 0;
}
#endif

#endif /* GSO_MODE_KPROBE || GSO_MODE_FENTRY */
#endif /* any GSO mode */
