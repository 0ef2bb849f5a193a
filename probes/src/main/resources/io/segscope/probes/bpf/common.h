/*
 * segscope: definitions shared by every program.
 *
 * Kernel struct fields are NEVER read through the (possibly wrong) kernel headers BCC finds:
 * every OFF_* / *_SHIFT / *_MASK macro below is passed in with -D by the Java loader, computed from the
 * running kernel's BTF (/sys/kernel/btf/vmlinux). See io.segscope.probes.KernelLayout.
 */

/* ABI constants (uapi / skbuff.h values that have not changed since 2.6). */
#define SEG_CHECKSUM_UNNECESSARY 1
#define SEG_CHECKSUM_PARTIAL 3
#define SEG_ETH_P_IP 0x0800

#define CAUSE_FEATURE_MISSING 0
#define CAUSE_GSO_MAX_SIZE 1
#define CAUSE_GSO_MAX_SEGS 2
#define CAUSE_CHECKSUM 3
#define CAUSE_OTHER 4
#define CAUSES 5

#define DUR_SLOTS 40 /* log2 ns: slot 39 holds [2^38, 2^39-1] ns, ~9 minutes */
#define SEG_SLOTS 18 /* log2 segments: gso_segs is a u16 */

#define NETIF_GSO_MASK ((((u64)1) << (NETIF_F_GSO_LAST + 1)) - (((u64)1) << NETIF_F_GSO_SHIFT))

/* (netns inode, ifindex): the key every per-device map shares with the device inventory. */
struct dev_key {
    u32 netns;
    u32 ifindex;
};

/*
 * Per-device counters and histograms, one value per CPU (no atomics on the hot path).
 * The layout is mirrored by io.segscope.probes.gso.DeviceCountersDecoder: change both together.
 */
struct dev_stats {
    char name[16];          /* the device's name at its last event on this CPU (fallback only) */
    u64 name_ns;            /* when name was read: the decoder takes the newest CPU's name */
    u64 sw_skbs;            /* super-packets segmented in software */
    u64 sw_segs;            /* segments they produced */
    u64 sw_bytes;           /* their length in bytes */
    u64 sw_timed;           /* how many of them were timed */
    u64 sw_ns;              /* total segmentation time of the timed ones */
    u64 off_skbs;           /* super-packets handed intact to the driver */
    u64 off_bytes;
    u64 cause[CAUSES];
    u64 dur[DUR_SLOTS];     /* log2 histogram of segmentation time, ns */
    u64 seg[SEG_SLOTS];     /* log2 histogram of segments per super-packet */
    u64 xdp_copied;         /* skbs copied/linearized for generic XDP */
    u64 xdp_passed;         /* skbs that reached generic XDP without a copy */
    u64 xdp_copied_bytes;
    u64 xdp_timed;
    u64 xdp_ns;
    u64 xdp_dur[DUR_SLOTS]; /* log2 histogram of copy time, ns */
};

/* Diagnostics, per CPU; index names in io.segscope.probes.gso.Diagnostic. */
#define DIAG_SEGMENTED_UNTRACKED 0  /* segmented at validate_xmit_skb, but its net_dev_queue was not seen */
#define DIAG_SEGMENTED_OTHER_CPU 1  /* segmented on another CPU than queued/dequeued: counted, not timed */
#define DIAG_STATS_FULL 2           /* per-device map full: event dropped */
#define DIAG_GSO_NULL 3             /* kprobe/fentry: __skb_gso_segment returned NULL (nothing segmented) */
#define DIAG_GSO_ERROR 4            /* kprobe/fentry: __skb_gso_segment returned an ERR_PTR */
#define DIAG_SLOTS 8

BPF_PERCPU_ARRAY(stats_zero, struct dev_stats, 1);
BPF_PERCPU_HASH(dev_stats, struct dev_key, struct dev_stats, 4096);
BPF_PERCPU_ARRAY(diag, u64, DIAG_SLOTS);

static __always_inline void diag_inc(int idx)
{
    u64 *v = diag.lookup(&idx);
    if (v)
        (*v)++;
}

static __always_inline u64 log2_slot(u64 v, u64 slots)
{
    /* bcc's bpf_log2l(v) is already floor(log2(v)) + 1: slot i holds [2^(i-1), 2^i - 1], slot 0 holds 0 */
    u64 s = v ? bpf_log2l(v) : 0;
    return s < slots ? s : slots - 1;
}

/*
 * counter[index]++ when index < n, and hist[slot of value]++.
 * The empty asm makes the index opaque to clang right before its bound check, so the check and the
 * access use the same 64-bit register: otherwise clang may check one copy of the index (or drop the
 * check as redundant after log2_slot's clamp) and index with another, which 6.1's verifier refuses
 * ("R2 unbounded memory access"); newer verifiers track it either way. (libbpf calls this barrier_var.)
 */
#define COUNT_AT(counter, n, index)               \
    do {                                          \
        u64 __idx = (index);                      \
        asm volatile("" : "+r"(__idx));           \
        if (__idx < (n))                          \
            (counter)[__idx]++;                   \
    } while (0)
#define HIST_INC(hist, slots, value) COUNT_AT(hist, slots, log2_slot((value), (slots)))

/*
 * ---- Views: the fields the programs need from a net_device / sk_buff, read in ONE bulk copy when the
 * running kernel's layout keeps them within DEV_SPAN_LEN / SKB_SPAN_LEN bytes (KernelLayout computes
 * the spans from BTF), else field by field. Each bpf_probe_read_kernel call costs ~20-40 ns: a
 * super-packet's path went from ~10 reads at net_dev_queue and ~8 at consume_skb to 2 and 2.
 */
#define AT(buf, start, type, off) (*(type *)((char *)(buf) + ((off) - (start))))

struct dev_view {
    u64 features;
    void *net;
    u32 ifindex;
    u32 gso_max_size;
    u32 gso_ipv4_max_size;
    u16 gso_max_segs;
    char name[16];
};

static __always_inline int dev_view_read(void *dev, struct dev_view *v)
{
#ifdef DEV_SPAN_LEN
    u64 buf[(DEV_SPAN_LEN + 7) / 8];
    if (bpf_probe_read_kernel(buf, DEV_SPAN_LEN, (char *)dev + DEV_SPAN_START))
        return -1;
    v->features = AT(buf, DEV_SPAN_START, u64, OFF_DEV_FEATURES);
    v->net = AT(buf, DEV_SPAN_START, void *, OFF_DEV_ND_NET);
    v->ifindex = AT(buf, DEV_SPAN_START, u32, OFF_DEV_IFINDEX);
    v->gso_max_size = AT(buf, DEV_SPAN_START, u32, OFF_DEV_GSO_MAX_SIZE);
    v->gso_max_segs = AT(buf, DEV_SPAN_START, u16, OFF_DEV_GSO_MAX_SEGS);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    v->gso_ipv4_max_size = AT(buf, DEV_SPAN_START, u32, OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    __builtin_memcpy(v->name, (char *)buf + (OFF_DEV_NAME - DEV_SPAN_START), sizeof v->name);
#else
    if (bpf_probe_read_kernel(&v->ifindex, sizeof v->ifindex, (char *)dev + OFF_DEV_IFINDEX))
        return -1;
    bpf_probe_read_kernel(&v->net, sizeof v->net, (char *)dev + OFF_DEV_ND_NET);
    bpf_probe_read_kernel(&v->features, sizeof v->features, (char *)dev + OFF_DEV_FEATURES);
    bpf_probe_read_kernel(&v->gso_max_size, sizeof v->gso_max_size, (char *)dev + OFF_DEV_GSO_MAX_SIZE);
    bpf_probe_read_kernel(&v->gso_max_segs, sizeof v->gso_max_segs, (char *)dev + OFF_DEV_GSO_MAX_SEGS);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    bpf_probe_read_kernel(&v->gso_ipv4_max_size, sizeof v->gso_ipv4_max_size,
                          (char *)dev + OFF_DEV_GSO_IPV4_MAX_SIZE);
#endif
    bpf_probe_read_kernel(&v->name, sizeof v->name, (char *)dev + OFF_DEV_NAME);
#endif
    return 0;
}

/* (netns inode, ifindex) of a device: one more read, for the namespace inode. */
static __always_inline int dev_key_of(struct dev_view *v, struct dev_key *key)
{
    u32 inum = 0;
    if (v->net && bpf_probe_read_kernel(&inum, sizeof inum, (char *)v->net + OFF_NET_INUM))
        return -1;
    key->netns = inum;
    key->ifindex = v->ifindex;
    return 0;
}

/* The device's per-CPU stats entry, created on first use, with the device's current name. */
static __always_inline struct dev_stats *stats_for(struct dev_view *v, struct dev_key *key)
{
    int zero = 0;
    struct dev_stats *init = stats_zero.lookup(&zero);
    if (!init)
        return 0;
    struct dev_stats *st = dev_stats.lookup_or_try_init(key, init);
    if (!st) {
        diag_inc(DIAG_STATS_FULL);
        return 0;
    }
    /*
     * Refreshed on every event (from the view: no extra read): a (netns inode, ifindex) key is reused
     * when a namespace is deleted and another created, and the entry must carry the current device's
     * name. The agent forgets vanished devices' entries (ProbeSession.forget).
     */
    __builtin_memcpy(st->name, v->name, sizeof st->name);
    st->name_ns = bpf_ktime_get_ns();
    return st;
}

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

static __always_inline int skb_view_read(void *skb, struct skb_view *v)
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

/* gso_size, gso_segs, gso_type of a skb, in one read of the start of its skb_shared_info. */
struct gso_info {
    u16 gso_size;
    u16 gso_segs;
    u32 gso_type;
};

static __always_inline int gso_info_read(struct skb_view *v, struct gso_info *g)
{
    void *shinfo = skb_shinfo_of(v);
    u64 buf[(SHINFO_SPAN_LEN + 7) / 8];
    if (!shinfo || bpf_probe_read_kernel(buf, SHINFO_SPAN_LEN, shinfo))
        return -1;
    g->gso_size = AT(buf, 0, u16, OFF_SHINFO_GSO_SIZE);
    g->gso_segs = AT(buf, 0, u16, OFF_SHINFO_GSO_SEGS);
    g->gso_type = AT(buf, 0, u32, OFF_SHINFO_GSO_TYPE);
    return 0;
}

/*
 * Why the kernel could not hand this GSO skb to the device intact, in the order the kernel decides it
 * (gso_features_check, then skb_gso_ok, then the checksum condition of netif_needs_gso).
 */
static __always_inline u32 gso_cause(void *dev, struct dev_view *d, u32 len, u16 gso_segs, u32 gso_type,
                                     u8 ip_summed, u8 encapsulation, u16 protocol)
{
    u64 features = d->features;
    u32 max_size = d->gso_max_size;
    u16 max_segs = d->gso_max_segs;
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    if (protocol == bpf_htons(SEG_ETH_P_IP))
        max_size = d->gso_ipv4_max_size;
#endif
    if (encapsulation) {
        u64 enc = 0;
        bpf_probe_read_kernel(&enc, sizeof enc, (char *)dev + OFF_DEV_HW_ENC_FEATURES);
        features &= enc;
    }
    if (max_segs && gso_segs > max_segs)
        return CAUSE_GSO_MAX_SEGS;
    if (max_size && len >= max_size)
        return CAUSE_GSO_MAX_SIZE;
    if ((((u64)gso_type) << NETIF_F_GSO_SHIFT) & NETIF_GSO_MASK & ~features)
        return CAUSE_FEATURE_MISSING;
    if (ip_summed != SEG_CHECKSUM_PARTIAL && ip_summed != SEG_CHECKSUM_UNNECESSARY)
        return CAUSE_CHECKSUM;
    return CAUSE_OTHER;
}

/* ---- generic XDP: the kernel's copy predicate, shared by every mode (kernel-facts.md §2) ---- */
#define SEG_XDP_PACKET_HEADROOM 256

/*
 * Whether generic XDP will copy/linearize this skb, evaluated where skb->data is at the network
 * header (net:netif_receive_skb, do_xdp_generic entry):
 *     cloned-and-shared || nonlinear || headroom < XDP_PACKET_HEADROOM
 * headroom = data - head before 6.9; from 6.9 the kernel measures it after pushing the MAC header,
 * i.e. the MAC header offset (XDP_HEADROOM_AFTER_MAC_PUSH). Redirected skbs are passed by the kernel
 * without running the program: callers skip them (v->redirected).
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
