/*
 * segscope: definitions shared by every program (the C half of the contract io.segscope.probes.wire
 * mirrors; ContractTest pins the two together).
 *
 * Kernel struct fields are NEVER read through the kernel headers BCC finds (they may belong to
 * another kernel): every OFF_* / *_SHIFT / *_MASK macro is passed in with -D by the Java loader,
 * computed from the running kernel's BTF. Programs of BTF-typed attach types (tp_btf, fentry/fexit)
 * read fields with plain loads the verifier checks against BTF; the others (raw tracepoints,
 * classic tracepoints, kprobes) with bpf_probe_read_kernel, one read per struct span.
 */

/* ABI constants (uapi / skbuff.h values that have not changed since 2.6). */
#define SEG_CHECKSUM_UNNECESSARY 1
#define SEG_CHECKSUM_PARTIAL 3
#define SEG_ETH_P_IP 0x0800
#define SEG_XDP_PACKET_HEADROOM 256

/* Why a device could not take a super-packet whole. Java: io.segscope.vocabulary.Cause. */
#define CAUSE_FEATURE_MISSING 0
#define CAUSE_GSO_MAX_SIZE 1
#define CAUSE_GSO_MAX_SEGS 2
#define CAUSE_CHECKSUM 3
#define CAUSE_OTHER 4
#define CAUSE_MTU 5
#define CAUSE_QDISC 6
#define CAUSE_TUNNEL_FEATURE_MISSING 7
#define CAUSES 8

/* Where the kernel segmented. Java: io.segscope.vocabulary.Site. */
#define SITE_XMIT 0          /* validate_xmit_skb: the device below could not take it (after the queue) */
#define SITE_IP_OUTPUT_MTU 1 /* ip(6)_finish_output_gso: forwarded, larger than the egress MTU */
#define SITE_QDISC 2         /* a qdisc segments (tbf, cake, netem, taprio): after the queue */
#define SITE_XFRM 3          /* IPsec output */
#define SITE_UDP_RX 4        /* UDP GRO packets segmented again for a socket that did not ask for GRO */
#define SITE_OTHER 5         /* everything else: netfilter queue, Open vSwitch, tap, drivers */
#define SITES 6

/* GSO type classes (from skb_shared_info.gso_type). Java: io.segscope.vocabulary.GsoType. */
#define GTYPE_TCP4 0
#define GTYPE_TCP6 1
#define GTYPE_UDP_L4 2
#define GTYPE_UDP_TUNNEL 3
#define GTYPE_GRE 4
#define GTYPE_IPIP 5
#define GTYPE_FRAGLIST 6
#define GTYPE_OTHER 7
#define GTYPES 8

/* Diagnostics, per CPU. Java: io.segscope.vocabulary.Diagnostic. */
#define DIAG_SEGMENTED_UNTIMED 0 /* counted, but its start was not seen on this CPU: not timed */
#define DIAG_COUNTS_FULL 1       /* per-device counter map full: event not counted */
#define DIAG_DETAIL_FULL 2       /* per-device detail map full: histograms/causes not kept */
#define DIAG_GSO_NULL 3          /* kprobe/fentry: __skb_gso_segment returned NULL */
#define DIAG_GSO_ERROR 4         /* kprobe/fentry: __skb_gso_segment returned an ERR_PTR */
#define DIAG_CALLER_UNWOUND 5    /* kprobe/fentry: the call site came from the unwinder (bpf_get_stack) */
#define DIAGS 8

/* Duration histogram: DUR_SLOTS slots, slot 0 the native zero bucket; dur_slot() is generated. */
/* Segments-per-skb histogram: native schema 0, slot 0 the zero bucket, slot i+1 = (2^(i-1), 2^i]. */
#define SEG_SLOTS 18

#define NETIF_GSO_MASK ((((u64)1) << (NETIF_F_GSO_LAST + 1)) - (((u64)1) << NETIF_F_GSO_SHIFT))

/*
 * The key every per-device map shares with the device inventory: the namespace's cookie (never
 * reused while the host runs; 0 on kernels without one), its inode (the `netns` label) and the
 * ifindex. Java: io.segscope.probes.wire.DeviceKey.
 */
struct dev_key {
    u64 netns_cookie;
    u32 netns;
    u32 ifindex;
};

/*
 * Per-device counters, one value per CPU (no atomics on the hot path). Java: io.segscope.probes.wire.Counts.
 * sw_* stay 0 here: a segmentation counts into gso_detail (one map operation), the reader copies them over.
 */
struct dev_counts {
    u64 gso_queued;        /* GSO super-packets queued for transmission on the device */
    u64 gso_queued_bytes;
    u64 gso_tx_dropped;    /* GSO super-packets dropped on the transmit path before the driver */
    u64 sw_skbs;           /* super-packets segmented in software (any site) on the device */
    u64 sw_segs;
    u64 sw_bytes;
    u64 sw_after_queue;    /* of those, segmented after net_dev_queue on this device (xmit, qdisc) */
    u64 xdp_copied;        /* skbs generic XDP copied/linearized */
    u64 xdp_copied_bytes;
    u64 xdp_passed;        /* skbs that reached generic XDP without a copy */
    u64 xdp_passed_bytes;
};

/*
 * What a device that segmented in software gets, one value per CPU (plain adds: no atomics, no
 * shared cache lines), created on its first software segmentation, so devices that never segment cost
 * no histogram memory. A segmentation is ONE lookup of this map: its counts (sw_*) live here, not in
 * dev_counts (the reader puts them there). Java: io.segscope.probes.wire.GsoDetail.
 */
struct gso_detail {
    char name[16];         /* the device's name at its first segmentation (on the CPU that created it) */
    u64 sw_skbs;           /* super-packets segmented in software (any site) on the device: exact */
    u64 sw_segs;
    u64 sw_bytes;
    u64 sw_after_queue;    /* of those, segmented after net_dev_queue on this device (xmit, qdisc) */
    u64 timed;             /* of those, timed (tracepoint mode: only inside a timing window) */
    u64 timed_ns;
    u64 cause[CAUSES];
    u64 site[SITES];
    u64 gtype[GTYPES];
    u64 seg[SEG_SLOTS];
    u64 dur[DUR_SLOTS];
};

/* The same for generic-XDP copies, created on a device's first copy. Java: io.segscope.probes.wire.XdpDetail. */
struct xdp_detail {
    char name[16];
    u64 timed;
    u64 timed_ns;
    u64 dur[DUR_SLOTS];
};

/* The device name of every counted device, written once when its counters are created. */
struct dev_name {
    char name[16];
};

BPF_F_TABLE("percpu_hash", struct dev_key, struct dev_counts, dev_counts, MAX_DEVICES, MAP_FLAGS);
BPF_F_TABLE("percpu_hash", struct dev_key, struct gso_detail, gso_detail, MAX_DEVICES, MAP_FLAGS);
BPF_F_TABLE("hash", struct dev_key, struct dev_name, dev_names, MAX_DEVICES, MAP_FLAGS);
BPF_PERCPU_ARRAY(diag, u64, DIAGS);
BPF_PERCPU_ARRAY(zero_gso_detail, struct gso_detail, 1);
/*
 * [0]: 1 while the timing programs are attached (a sampling window, or always), written by the agent:
 * outside windows an untimed segmentation is expected, not a diagnostic.
 */
BPF_ARRAY(timing_window, u64, 1);

static __always_inline int timing_open(void)
{
    int zero = 0;
    u64 *on = timing_window.lookup(&zero);
    return on && *on;
}

static __always_inline void diag_inc(int idx)
{
    u64 *v = diag.lookup(&idx);
    if (v)
        (*v)++;
}

/*
 * counter[index] += 1 when index < n (a per-CPU value: a plain add).
 * The empty asm makes the index opaque to clang right before its bound check, so the check and the
 * access use the same register (6.1's verifier refuses "R2 unbounded memory access" otherwise).
 */
#define INC_AT(counter, n, index)                         \
    do {                                                  \
        u64 __idx = (index);                              \
        asm volatile("" : "+r"(__idx));                   \
        if (__idx < (n))                                  \
            (counter)[__idx]++;                           \
    } while (0)

/* The same on a value every CPU shares (xdp_detail): an atomic add. */
#define ATOMIC_INC_AT(counter, n, index)                  \
    do {                                                  \
        u64 __idx = (index);                              \
        asm volatile("" : "+r"(__idx));                   \
        if (__idx < (n))                                  \
            __sync_fetch_and_add(&(counter)[__idx], 1);   \
    } while (0)

/* Native schema-0 slot of a segment count: 0 -> zero bucket, v -> 1 + ceil(log2 v). */
static __always_inline u64 seg_slot(u64 v)
{
    if (v == 0)
        return 0;
    /* bcc's bpf_log2l(x) is floor(log2 x) + 1 for x > 0 */
    u64 s = v <= 1 ? 1 : 1 + bpf_log2l(v - 1);
    return s < SEG_SLOTS ? s : SEG_SLOTS - 1;
}

/* ---- views: the fields the programs use, read once per event ---- */

struct dev_view {
    u64 features;
    u64 hw_enc_features;
    u64 netns_cookie;
    u32 netns;
    u32 ifindex;
    u32 gso_max_size;
    u32 gso_ipv4_max_size;
    u32 mtu;
    u16 gso_max_segs;
    void *xdp_prog;
};

struct skb_view {
    void *dev;
    void *head;
    void *data;
    u64 end;          /* an offset from head (SKB_END_IS_OFFSET) or a pointer */
    u32 len;
    u32 data_len;
    u16 protocol;
    u16 mac_header;
    u8 ip_summed;
    u8 encapsulation;
    u8 cloned;
    u8 redirected;
};

#define SKB_BITS(byte, shift, mask) (((byte) >> (shift)) & (mask))
#define AT(buf, start, type, off) (*(type *)((char *)(buf) + ((off) - (start))))
#define LD(type, p, off) (*(type *)((char *)(p) + (off)))
/* A classic tracepoint's field, at the offset its tracefs format file gives (-DTPOFF_<event>_<field>). */
#define TP_ARG(ctx, event, field, type) (*(type *)((char *)(ctx) + TPOFF_##event##_##field))

/* BTF-typed pointers (tp_btf, fentry, fexit): plain loads, checked by the verifier against BTF. */
static __always_inline void skb_view_btf(void *skb, struct skb_view *v)
{
    v->dev = LD(void *, skb, OFF_SKB_DEV);
    v->head = LD(void *, skb, OFF_SKB_HEAD);
    v->data = LD(void *, skb, OFF_SKB_DATA);
#if SKB_END_IS_OFFSET
    v->end = LD(u32, skb, OFF_SKB_END);
#else
    v->end = (u64)LD(void *, skb, OFF_SKB_END);
#endif
    v->len = LD(u32, skb, OFF_SKB_LEN);
    v->data_len = LD(u32, skb, OFF_SKB_DATA_LEN);
    v->protocol = LD(u16, skb, OFF_SKB_PROTOCOL);
    v->mac_header = LD(u16, skb, OFF_SKB_MAC_HEADER);
    v->ip_summed = SKB_BITS(LD(u8, skb, OFF_SKB_IP_SUMMED_BYTE), SKB_IP_SUMMED_SHIFT, SKB_IP_SUMMED_MASK);
    v->encapsulation = SKB_BITS(LD(u8, skb, OFF_SKB_ENCAP_BYTE), SKB_ENCAP_SHIFT, SKB_ENCAP_MASK);
    v->cloned = SKB_BITS(LD(u8, skb, OFF_SKB_CLONED_BYTE), SKB_CLONED_SHIFT, SKB_CLONED_MASK);
#ifdef OFF_SKB_REDIRECTED_BYTE
    v->redirected = SKB_BITS(LD(u8, skb, OFF_SKB_REDIRECTED_BYTE), SKB_REDIRECTED_SHIFT, SKB_REDIRECTED_MASK);
#endif
}

/*
 * The fields a segmentation's cause needs (features, limits, the key), BTF-typed: not mtu and xdp_prog, which
 * lie elsewhere in net_device (xdp_prog with the receive fields, a cache line the transmit path does not touch).
 */
static __always_inline int dev_view_btf_tx(void *dev, struct dev_view *v)
{
    if (!dev)
        return -1;
    v->features = LD(u64, dev, OFF_DEV_FEATURES);
    v->hw_enc_features = LD(u64, dev, OFF_DEV_HW_ENC_FEATURES);
    v->ifindex = LD(u32, dev, OFF_DEV_IFINDEX);
    v->gso_max_size = LD(u32, dev, OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    v->gso_ipv4_max_size = LD(u32, dev, OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    v->gso_max_segs = LD(u16, dev, OFF_DEV_GSO_MAX_SEGS);
    void *net = LD(void *, dev, OFF_DEV_ND_NET);
    if (net) {
        v->netns = LD(u32, net, OFF_NET_INUM);
#ifdef OFF_NET_COOKIE
        v->netns_cookie = LD(u64, net, OFF_NET_COOKIE);
#endif
    }
    return 0;
}

static __always_inline int dev_view_btf(void *dev, struct dev_view *v)
{
    if (!dev)
        return -1;
    v->features = LD(u64, dev, OFF_DEV_FEATURES);
    v->hw_enc_features = LD(u64, dev, OFF_DEV_HW_ENC_FEATURES);
    v->ifindex = LD(u32, dev, OFF_DEV_IFINDEX);
    v->gso_max_size = LD(u32, dev, OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    v->gso_ipv4_max_size = LD(u32, dev, OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    v->gso_max_segs = LD(u16, dev, OFF_DEV_GSO_MAX_SEGS);
    v->mtu = LD(u32, dev, OFF_DEV_MTU);
    v->xdp_prog = LD(void *, dev, OFF_DEV_XDP_PROG);
    void *net = LD(void *, dev, OFF_DEV_ND_NET);
    if (net) {
        v->netns = LD(u32, net, OFF_NET_INUM);
#ifdef OFF_NET_COOKIE
        v->netns_cookie = LD(u64, net, OFF_NET_COOKIE);
#endif
    }
    return 0;
}

/* Raw pointers (raw and classic tracepoints, kprobes): one probe read per struct span. */
static __always_inline int skb_view_probe(void *skb, struct skb_view *v)
{
#ifdef SKB_SPAN_LEN
    u64 buf[(SKB_SPAN_LEN + 7) / 8];
    if (bpf_probe_read_kernel(buf, SKB_SPAN_LEN, (char *)skb + SKB_SPAN_START))
        return -1;
    v->dev = AT(buf, SKB_SPAN_START, void *, OFF_SKB_DEV);
    v->head = AT(buf, SKB_SPAN_START, void *, OFF_SKB_HEAD);
    v->data = AT(buf, SKB_SPAN_START, void *, OFF_SKB_DATA);
#if SKB_END_IS_OFFSET
    v->end = AT(buf, SKB_SPAN_START, u32, OFF_SKB_END);
#else
    v->end = AT(buf, SKB_SPAN_START, u64, OFF_SKB_END);
#endif
    v->len = AT(buf, SKB_SPAN_START, u32, OFF_SKB_LEN);
    v->data_len = AT(buf, SKB_SPAN_START, u32, OFF_SKB_DATA_LEN);
    v->protocol = AT(buf, SKB_SPAN_START, u16, OFF_SKB_PROTOCOL);
    v->mac_header = AT(buf, SKB_SPAN_START, u16, OFF_SKB_MAC_HEADER);
    v->ip_summed = SKB_BITS(AT(buf, SKB_SPAN_START, u8, OFF_SKB_IP_SUMMED_BYTE), SKB_IP_SUMMED_SHIFT,
                            SKB_IP_SUMMED_MASK);
    v->encapsulation = SKB_BITS(AT(buf, SKB_SPAN_START, u8, OFF_SKB_ENCAP_BYTE), SKB_ENCAP_SHIFT, SKB_ENCAP_MASK);
    v->cloned = SKB_BITS(AT(buf, SKB_SPAN_START, u8, OFF_SKB_CLONED_BYTE), SKB_CLONED_SHIFT, SKB_CLONED_MASK);
#ifdef OFF_SKB_REDIRECTED_BYTE
    v->redirected = SKB_BITS(AT(buf, SKB_SPAN_START, u8, OFF_SKB_REDIRECTED_BYTE), SKB_REDIRECTED_SHIFT,
                             SKB_REDIRECTED_MASK);
#endif
#else
    /* this kernel's sk_buff keeps the fields too far apart for one read: field by field */
    u8 b = 0;
    if (bpf_probe_read_kernel(&v->dev, sizeof v->dev, (char *)skb + OFF_SKB_DEV))
        return -1;
    bpf_probe_read_kernel(&v->head, sizeof v->head, (char *)skb + OFF_SKB_HEAD);
    bpf_probe_read_kernel(&v->data, sizeof v->data, (char *)skb + OFF_SKB_DATA);
#if SKB_END_IS_OFFSET
    u32 end32 = 0;
    bpf_probe_read_kernel(&end32, sizeof end32, (char *)skb + OFF_SKB_END);
    v->end = end32;
#else
    bpf_probe_read_kernel(&v->end, sizeof v->end, (char *)skb + OFF_SKB_END);
#endif
    bpf_probe_read_kernel(&v->len, sizeof v->len, (char *)skb + OFF_SKB_LEN);
    bpf_probe_read_kernel(&v->data_len, sizeof v->data_len, (char *)skb + OFF_SKB_DATA_LEN);
    bpf_probe_read_kernel(&v->protocol, sizeof v->protocol, (char *)skb + OFF_SKB_PROTOCOL);
    bpf_probe_read_kernel(&v->mac_header, sizeof v->mac_header, (char *)skb + OFF_SKB_MAC_HEADER);
    bpf_probe_read_kernel(&b, 1, (char *)skb + OFF_SKB_IP_SUMMED_BYTE);
    v->ip_summed = SKB_BITS(b, SKB_IP_SUMMED_SHIFT, SKB_IP_SUMMED_MASK);
    bpf_probe_read_kernel(&b, 1, (char *)skb + OFF_SKB_ENCAP_BYTE);
    v->encapsulation = SKB_BITS(b, SKB_ENCAP_SHIFT, SKB_ENCAP_MASK);
    bpf_probe_read_kernel(&b, 1, (char *)skb + OFF_SKB_CLONED_BYTE);
    v->cloned = SKB_BITS(b, SKB_CLONED_SHIFT, SKB_CLONED_MASK);
#ifdef OFF_SKB_REDIRECTED_BYTE
    bpf_probe_read_kernel(&b, 1, (char *)skb + OFF_SKB_REDIRECTED_BYTE);
    v->redirected = SKB_BITS(b, SKB_REDIRECTED_SHIFT, SKB_REDIRECTED_MASK);
#endif
#endif
    return 0;
}

/*
 * The fields a segmentation's cause and key need (dev_view_btf_tx's), from raw pointers with as few probe reads as
 * the layout allows: ifindex with the features (one read where they lie within 128 bytes: 216..272 on 6.1), the
 * GSO limits (one read), nd_net, then the namespace's inode and cookie. Not mtu and xdp_prog. Each probe read is a
 * helper call with its own fault handling: on 6.1 (net_device's fields apart, no DEV_SPAN) dev_view_probe takes 9
 * reads for the device where this takes 3.
 */
#define SEG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SEG_MAX(a, b) ((a) > (b) ? (a) : (b))
#define DEV_ID_START (SEG_MIN(OFF_DEV_IFINDEX, SEG_MIN(OFF_DEV_FEATURES, OFF_DEV_HW_ENC_FEATURES)) & ~7)
#define DEV_ID_END SEG_MAX(OFF_DEV_IFINDEX + 4, SEG_MAX(OFF_DEV_FEATURES + 8, OFF_DEV_HW_ENC_FEATURES + 8))
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
#define DEV_LIM_START (SEG_MIN(OFF_DEV_GSO_MAX_SIZE, SEG_MIN(OFF_DEV_GSO_MAX_SEGS, OFF_DEV_GSO_IPV4_MAX_SIZE)) & ~7)
#define DEV_LIM_END SEG_MAX(OFF_DEV_GSO_MAX_SIZE + 4, SEG_MAX(OFF_DEV_GSO_MAX_SEGS + 2, OFF_DEV_GSO_IPV4_MAX_SIZE + 4))
#else
#define DEV_LIM_START (SEG_MIN(OFF_DEV_GSO_MAX_SIZE, OFF_DEV_GSO_MAX_SEGS) & ~7)
#define DEV_LIM_END SEG_MAX(OFF_DEV_GSO_MAX_SIZE + 4, OFF_DEV_GSO_MAX_SEGS + 2)
#endif
static __always_inline int dev_view_probe_tx(void *dev, struct dev_view *v)
{
    if (!dev)
        return -1;
    void *net = 0;
#if DEV_ID_END - DEV_ID_START <= 128
    {
        u64 buf[(DEV_ID_END - DEV_ID_START + 7) / 8];
        if (bpf_probe_read_kernel(buf, DEV_ID_END - DEV_ID_START, (char *)dev + DEV_ID_START))
            return -1;
        v->ifindex = AT(buf, DEV_ID_START, u32, OFF_DEV_IFINDEX);
        v->features = AT(buf, DEV_ID_START, u64, OFF_DEV_FEATURES);
        v->hw_enc_features = AT(buf, DEV_ID_START, u64, OFF_DEV_HW_ENC_FEATURES);
    }
#else
    if (bpf_probe_read_kernel(&v->ifindex, sizeof v->ifindex, (char *)dev + OFF_DEV_IFINDEX))
        return -1;
    bpf_probe_read_kernel(&v->features, sizeof v->features, (char *)dev + OFF_DEV_FEATURES);
    bpf_probe_read_kernel(&v->hw_enc_features, sizeof v->hw_enc_features, (char *)dev + OFF_DEV_HW_ENC_FEATURES);
#endif
#if DEV_LIM_END - DEV_LIM_START <= 128
    {
        u64 buf[(DEV_LIM_END - DEV_LIM_START + 7) / 8];
        if (!bpf_probe_read_kernel(buf, DEV_LIM_END - DEV_LIM_START, (char *)dev + DEV_LIM_START)) {
            v->gso_max_size = AT(buf, DEV_LIM_START, u32, OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
            v->gso_ipv4_max_size = AT(buf, DEV_LIM_START, u32, OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
            v->gso_max_segs = AT(buf, DEV_LIM_START, u16, OFF_DEV_GSO_MAX_SEGS);
        }
    }
#else
    bpf_probe_read_kernel(&v->gso_max_size, sizeof v->gso_max_size, (char *)dev + OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    bpf_probe_read_kernel(&v->gso_ipv4_max_size, sizeof v->gso_ipv4_max_size,
                          (char *)dev + OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    bpf_probe_read_kernel(&v->gso_max_segs, sizeof v->gso_max_segs, (char *)dev + OFF_DEV_GSO_MAX_SEGS);
#endif
    bpf_probe_read_kernel(&net, sizeof net, (char *)dev + OFF_DEV_ND_NET);
    if (net) {
        bpf_probe_read_kernel(&v->netns, sizeof v->netns, (char *)net + OFF_NET_INUM);
#ifdef OFF_NET_COOKIE
        bpf_probe_read_kernel(&v->netns_cookie, sizeof v->netns_cookie, (char *)net + OFF_NET_COOKIE);
#endif
    }
    return 0;
}

static __always_inline int dev_view_probe(void *dev, struct dev_view *v)
{
    if (!dev)
        return -1;
    void *net = 0;
#ifdef DEV_SPAN_LEN
    u64 buf[(DEV_SPAN_LEN + 7) / 8];
    if (bpf_probe_read_kernel(buf, DEV_SPAN_LEN, (char *)dev + DEV_SPAN_START))
        return -1;
    v->features = AT(buf, DEV_SPAN_START, u64, OFF_DEV_FEATURES);
    v->ifindex = AT(buf, DEV_SPAN_START, u32, OFF_DEV_IFINDEX);
    v->gso_max_size = AT(buf, DEV_SPAN_START, u32, OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    v->gso_ipv4_max_size = AT(buf, DEV_SPAN_START, u32, OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    v->gso_max_segs = AT(buf, DEV_SPAN_START, u16, OFF_DEV_GSO_MAX_SEGS);
    v->mtu = AT(buf, DEV_SPAN_START, u32, OFF_DEV_MTU);
    v->xdp_prog = AT(buf, DEV_SPAN_START, void *, OFF_DEV_XDP_PROG);
    net = AT(buf, DEV_SPAN_START, void *, OFF_DEV_ND_NET);
#else
    /* this kernel's net_device keeps the fields too far apart for one read (before 6.8) */
    if (bpf_probe_read_kernel(&v->ifindex, sizeof v->ifindex, (char *)dev + OFF_DEV_IFINDEX))
        return -1;
    bpf_probe_read_kernel(&v->features, sizeof v->features, (char *)dev + OFF_DEV_FEATURES);
    bpf_probe_read_kernel(&v->gso_max_size, sizeof v->gso_max_size, (char *)dev + OFF_DEV_GSO_MAX_SIZE);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    bpf_probe_read_kernel(&v->gso_ipv4_max_size, sizeof v->gso_ipv4_max_size,
                          (char *)dev + OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    bpf_probe_read_kernel(&v->gso_max_segs, sizeof v->gso_max_segs, (char *)dev + OFF_DEV_GSO_MAX_SEGS);
    bpf_probe_read_kernel(&v->mtu, sizeof v->mtu, (char *)dev + OFF_DEV_MTU);
    bpf_probe_read_kernel(&v->xdp_prog, sizeof v->xdp_prog, (char *)dev + OFF_DEV_XDP_PROG);
    bpf_probe_read_kernel(&net, sizeof net, (char *)dev + OFF_DEV_ND_NET);
#endif
    bpf_probe_read_kernel(&v->hw_enc_features, sizeof v->hw_enc_features, (char *)dev + OFF_DEV_HW_ENC_FEATURES);
    if (net) {
        bpf_probe_read_kernel(&v->netns, sizeof v->netns, (char *)net + OFF_NET_INUM);
#ifdef OFF_NET_COOKIE
        bpf_probe_read_kernel(&v->netns_cookie, sizeof v->netns_cookie, (char *)net + OFF_NET_COOKIE);
#endif
    }
    return 0;
}

static __always_inline void *skb_shinfo_of(struct skb_view *v)
{
    if (!v->head)
        return 0;
#if SKB_END_IS_OFFSET
    return (char *)v->head + v->end;
#else
    return (void *)v->end;
#endif
}

/* gso_size, gso_segs, gso_type of a skb: one read of the start of its skb_shared_info. */
struct gso_info {
    u16 gso_size;
    u16 gso_segs;
    u32 gso_type;
};

#if defined(SEG_KFUNC_RDONLY_CAST) && defined(BTF_ID_SKB_SHARED_INFO) && defined(TP_ATTACH_BTF)
/*
 * The kfunc bpf_rdonly_cast (kernel 6.2+, found in BTF by KernelLayout): a read-only view of the shared
 * info typed by BTF, so its fields are plain loads the verifier checks (a faulting one reads 0) instead
 * of a probe read. BCC cannot emit a kfunc call: this calls a placeholder helper number that the loader
 * turns into the kfunc call (io.segscope.probes.load.Kfuncs); the verifier inlines it to a move.
 */
#define SEG_SHINFO_TYPED 1
static void *(*seg_rdonly_cast)(void *obj, u32 btf_id) = (void *)SEG_KFUNC_RDONLY_CAST;
#endif

static __always_inline int gso_info_read(struct skb_view *v, struct gso_info *g)
{
    void *shinfo = skb_shinfo_of(v);
#ifdef SEG_SHINFO_TYPED
    if (!shinfo)
        return -1;
    void *sh = seg_rdonly_cast(shinfo, BTF_ID_SKB_SHARED_INFO);
    g->gso_size = LD(u16, sh, OFF_SHINFO_GSO_SIZE);
    g->gso_segs = LD(u16, sh, OFF_SHINFO_GSO_SEGS);
    g->gso_type = LD(u32, sh, OFF_SHINFO_GSO_TYPE);
#else
    u64 buf[(SHINFO_SPAN_LEN + 7) / 8];
    if (!shinfo || bpf_probe_read_kernel(buf, SHINFO_SPAN_LEN, shinfo))
        return -1;
    g->gso_size = AT(buf, 0, u16, OFF_SHINFO_GSO_SIZE);
    g->gso_segs = AT(buf, 0, u16, OFF_SHINFO_GSO_SEGS);
    g->gso_type = AT(buf, 0, u32, OFF_SHINFO_GSO_TYPE);
#endif
    return 0;
}

static __always_inline void dev_key_of(struct dev_view *d, struct dev_key *k)
{
    k->netns_cookie = d->netns_cookie;
    k->netns = d->netns;
    k->ifindex = d->ifindex;
}

/*
 * The device's per-CPU counters, created on first use. The device's name is kept once, in
 * dev_names, at creation (a fallback for devices the inventory cannot see).
 */
static __always_inline struct dev_counts *counts_for(void *dev, struct dev_key *key)
{
    struct dev_counts *c = dev_counts.lookup(key);
    if (c)
        return c;
    struct dev_counts zero = {};
    if (dev_counts.insert(key, &zero) && !dev_counts.lookup(key)) {
        diag_inc(DIAG_COUNTS_FULL);
        return 0;
    }
    struct dev_name n = {};
    bpf_probe_read_kernel(&n.name, sizeof n.name, (char *)dev + OFF_DEV_NAME);
    dev_names.update(key, &n);
    return dev_counts.lookup(key);
}

static __always_inline struct gso_detail *gso_detail_for(void *dev, struct dev_key *key)
{
    struct gso_detail *d = gso_detail.lookup(key);
    if (d)
        return d;
    int zero = 0;
    struct gso_detail *init = zero_gso_detail.lookup(&zero);
    if (!init)
        return 0;
    bpf_probe_read_kernel(&init->name, sizeof init->name, (char *)dev + OFF_DEV_NAME);
    gso_detail.insert(key, init);
    d = gso_detail.lookup(key);
    if (!d) {
        diag_inc(DIAG_DETAIL_FULL);
        return 0;
    }
    /* the name also where every device's name is kept (a device that segments but never queues in a window) */
    struct dev_name n = {};
    __builtin_memcpy(&n.name, init->name, sizeof n.name);
    dev_names.update(key, &n);
    return d;
}

/* The GSO type class of a gso_type bit set (tunnels first: their inner type is also set). */
static __always_inline u32 gso_type_class(u32 t)
{
    if (t & (SEG_GSO_UDP_TUNNEL | SEG_GSO_UDP_TUNNEL_CSUM))
        return GTYPE_UDP_TUNNEL;
    if (t & (SEG_GSO_GRE | SEG_GSO_GRE_CSUM))
        return GTYPE_GRE;
    if (t & (SEG_GSO_IPXIP4 | SEG_GSO_IPXIP6))
        return GTYPE_IPIP;
    if (t & SEG_GSO_FRAGLIST)
        return GTYPE_FRAGLIST;
    if (t & SEG_GSO_TCPV4)
        return GTYPE_TCP4;
    if (t & SEG_GSO_TCPV6)
        return GTYPE_TCP6;
    if (t & SEG_GSO_UDP_L4)
        return GTYPE_UDP_L4;
    return GTYPE_OTHER;
}

/* The SKB_GSO_* bits that name a tunnel (the outer header), not the protocol segmented inside it. */
#define SEG_GSO_TUNNEL_BITS (SEG_GSO_UDP_TUNNEL | SEG_GSO_UDP_TUNNEL_CSUM | SEG_GSO_GRE | SEG_GSO_GRE_CSUM | \
                             SEG_GSO_IPXIP4 | SEG_GSO_IPXIP6 | SEG_GSO_TUNNEL_REMCSUM)

/*
 * Why the kernel could not hand this GSO skb to device d intact (segmented at validate_xmit_skb), in
 * the kernel's own order: gso_features_check, then skb_gso_ok, then the checksum condition. For an
 * encapsulated skb (skb->encapsulation at validate_xmit_skb; a tunnel bit in gso_type once segmented,
 * when freed) the device's usable features are features & hw_enc_features (netif_skb_features):
 * when what is missing is the tunnel's own GSO bit, or a protocol the device segments only outside a
 * tunnel, the cause is tunnel_feature_missing; when the device cannot segment the inner protocol at
 * all, feature_missing.
 */
static __always_inline u32 xmit_cause(struct dev_view *d, struct skb_view *s, struct gso_info *g)
{
    u64 features = d->features;
    u32 max_size = d->gso_max_size;
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    if (s->protocol == bpf_htons(SEG_ETH_P_IP))
        max_size = d->gso_ipv4_max_size;
#endif
    if (d->gso_max_segs && g->gso_segs > d->gso_max_segs)
        return CAUSE_GSO_MAX_SEGS;
    if (max_size && s->len >= max_size)
        return CAUSE_GSO_MAX_SIZE;
    u64 wanted = (((u64)g->gso_type) << NETIF_F_GSO_SHIFT) & NETIF_GSO_MASK;
    /* the tunnel GSO callbacks clear skb->encapsulation of the original: its gso_type still says so */
    if (s->encapsulation || (g->gso_type & SEG_GSO_TUNNEL_BITS)) {
        u64 missing = wanted & ~(features & d->hw_enc_features);
        if (missing)
            return missing & ~features & ~(((u64)SEG_GSO_TUNNEL_BITS) << NETIF_F_GSO_SHIFT)
                ? CAUSE_FEATURE_MISSING : CAUSE_TUNNEL_FEATURE_MISSING;
    } else if (wanted & ~features) {
        return CAUSE_FEATURE_MISSING;
    }
    if (s->ip_summed != SEG_CHECKSUM_PARTIAL && s->ip_summed != SEG_CHECKSUM_UNNECESSARY)
        return CAUSE_CHECKSUM;
    return CAUSE_OTHER;
}

/*
 * The cause of a segmentation at site: the site itself where it says why (a forwarded packet larger than
 * the egress MTU, a qdisc that segments); a socket that did not ask for UDP GRO (udp_rx) is "other";
 * elsewhere the device's features and limits, as validate_xmit_skb judges them.
 */
static __always_inline u32 cause_of(u32 site, struct dev_view *d, struct skb_view *s, struct gso_info *g)
{
    if (site == SITE_IP_OUTPUT_MTU)
        return CAUSE_MTU;
    if (site == SITE_QDISC)
        return CAUSE_QDISC;
    if (site == SITE_UDP_RX)
        return CAUSE_OTHER;
    return xmit_cause(d, s, g);
}

/*
 * One software segmentation of skb s (gso g) on device d; code = site_of()'s answer (the site, plus
 * SITE_AFTER_QUEUE when it happened after net_dev_queue); timed when duration_ns != ~0.
 */
static __always_inline void count_segmentation(void *dev, struct dev_view *d, struct skb_view *s,
                                               struct gso_info *g, u32 segs, u32 code, u64 duration_ns)
{
    u32 site = code & SITE_MASK;
    struct dev_key key = {};
    dev_key_of(d, &key);
    struct gso_detail *det = gso_detail_for(dev, &key);
    if (!det)
        return;
    det->sw_skbs++;
    det->sw_segs += segs;
    det->sw_bytes += s->len;
    if (code & SITE_AFTER_QUEUE)
        det->sw_after_queue++;
    INC_AT(det->cause, CAUSES, cause_of(site, d, s, g));
    INC_AT(det->site, SITES, site);
    INC_AT(det->gtype, GTYPES, gso_type_class(g->gso_type));
    INC_AT(det->seg, SEG_SLOTS, seg_slot(segs));
    if (duration_ns != ~0ULL) {
        det->timed++;
        det->timed_ns += duration_ns;
        INC_AT(det->dur, DUR_SLOTS, dur_slot(duration_ns));
    }
}

/*
 * The time of a segmentation counted earlier (kprobe mode counts at the entry and times at the exit, in windows
 * only) on the device of key: a second lookup of its detail, in windows only.
 */
static __always_inline void count_duration(struct dev_key *key, u64 duration_ns)
{
    if (duration_ns == ~0ULL)
        return;
    struct gso_detail *det = gso_detail.lookup(key);
    if (!det)
        return;
    det->timed++;
    det->timed_ns += duration_ns;
    INC_AT(det->dur, DUR_SLOTS, dur_slot(duration_ns));
}

/*
 * Segments the skb will be cut into: gso_segs; for skbs that carry 0 (SKB_GSO_DODGY: virtio-net
 * headers from a tap or a VM) the payload after the headers divided by gso_size, with the headers
 * measured as qdisc_pkt_len_init does (transport offset + TCP header length, or + 8 for UDP); two
 * probe reads, only for such skbs. Called where skb->data is at the MAC header (after segmentation, or at
 * __skb_gso_segment's entry on the transmit path).
 */
static __always_inline u32 segments_of(void *skb, struct skb_view *s, struct gso_info *g)
{
    if (g->gso_segs)
        return g->gso_segs;
    if (!g->gso_size)
        return 0;
    u32 hdr = 0;
    u16 th = 0;
    if (!s->encapsulation && !(g->gso_type & SEG_GSO_TUNNEL_BITS)
        && !bpf_probe_read_kernel(&th, sizeof th, (char *)skb + OFF_SKB_TRANSPORT_HEADER)
        && th != (u16)~0U && th > s->mac_header) {
        if (g->gso_type & (SEG_GSO_TCPV4 | SEG_GSO_TCPV6)) {
            u8 doff = 0;
            if (!bpf_probe_read_kernel(&doff, 1, (char *)s->head + th + 12))
                hdr = (th - s->mac_header) + (doff >> 4) * 4;
        } else if (g->gso_type & SEG_GSO_UDP_L4) {
            hdr = (th - s->mac_header) + 8;
        }
    }
    if (hdr && s->len > hdr)
        return (s->len - hdr + g->gso_size - 1) / g->gso_size;
    return (s->len + g->gso_size - 1) / g->gso_size;
}

/* A GSO skb queued for transmission on its device (net:net_dev_queue). */
static __always_inline void count_queued(void *dev, struct dev_view *d, struct skb_view *s)
{
    struct dev_key key = {};
    dev_key_of(d, &key);
    struct dev_counts *c = counts_for(dev, &key);
    if (!c)
        return;
    c->gso_queued++;
    c->gso_queued_bytes += s->len;
}

/* A GSO skb dropped on the transmit path before reaching the driver (skb:kfree_skb). */
static __always_inline void count_tx_drop(void *dev, struct dev_view *d)
{
    struct dev_key key = {};
    dev_key_of(d, &key);
    struct dev_counts *c = counts_for(dev, &key);
    if (c)
        c->gso_tx_dropped++;
}
