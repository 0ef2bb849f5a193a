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

static __always_inline int dev_key_of(void *dev, struct dev_key *key)
{
    void *net = 0;
    int ifindex = 0;
    u32 inum = 0;
    if (bpf_probe_read_kernel(&ifindex, sizeof ifindex, (char *)dev + OFF_DEV_IFINDEX))
        return -1;
    if (bpf_probe_read_kernel(&net, sizeof net, (char *)dev + OFF_DEV_ND_NET))
        return -1;
    if (net && bpf_probe_read_kernel(&inum, sizeof inum, (char *)net + OFF_NET_INUM))
        return -1;
    key->netns = inum;
    key->ifindex = ifindex;
    return 0;
}

/* The device's per-CPU stats entry, created on first use, with the device's current name. */
static __always_inline struct dev_stats *stats_for(void *dev, struct dev_key *key)
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
     * Refreshed on every event (a 16-byte read): a (netns inode, ifindex) key is reused when a
     * namespace is deleted and another created, and the entry must carry the current device's name.
     * The agent forgets vanished devices' entries (ProbeSession.forget); until it has, the new device
     * inherits the old counters.
     */
    bpf_probe_read_kernel(&st->name, sizeof st->name, (char *)dev + OFF_DEV_NAME);
    st->name_ns = bpf_ktime_get_ns();
    return st;
}

static __always_inline void *skb_shinfo_of(void *skb)
{
#if SKB_END_IS_OFFSET
    u32 end = 0;
#else
    u64 end = 0;
#endif
    void *head = 0;
    bpf_probe_read_kernel(&end, sizeof end, (char *)skb + OFF_SKB_END);
    bpf_probe_read_kernel(&head, sizeof head, (char *)skb + OFF_SKB_HEAD);
    if (!head)
        return 0;
#if SKB_END_IS_OFFSET
    return (char *)head + end;
#else
    return (void *)end;
#endif
}

static __always_inline u8 skb_bits(void *skb, u32 byte_off, u32 shift, u32 mask)
{
    u8 b = 0;
    bpf_probe_read_kernel(&b, 1, (char *)skb + byte_off);
    return (b >> shift) & mask;
}

/*
 * Why the kernel could not hand this GSO skb to `dev` intact, in the order the kernel decides it
 * (gso_features_check, then skb_gso_ok, then the checksum condition of netif_needs_gso).
 */
static __always_inline u32 gso_cause(void *dev, u32 len, u16 gso_segs, u32 gso_type, u8 ip_summed,
                                     u8 encapsulation, u16 protocol)
{
    u64 features = 0;
    u32 max_size = 0;
    u16 max_segs = 0;
    bpf_probe_read_kernel(&features, sizeof features, (char *)dev + OFF_DEV_FEATURES);
    bpf_probe_read_kernel(&max_size, sizeof max_size, (char *)dev + OFF_DEV_GSO_MAX_SIZE);
    bpf_probe_read_kernel(&max_segs, sizeof max_segs, (char *)dev + OFF_DEV_GSO_MAX_SEGS);
#ifdef OFF_DEV_GSO_IPV4_MAX_SIZE
    if (protocol == bpf_htons(SEG_ETH_P_IP))
        bpf_probe_read_kernel(&max_size, sizeof max_size, (char *)dev + OFF_DEV_GSO_IPV4_MAX_SIZE);
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

/* skb->redirected: the kernel passes such skbs through generic XDP without running the program. */
static __always_inline int skb_redirected(void *skb)
{
#ifdef OFF_SKB_REDIRECTED_BYTE
    return skb_bits(skb, OFF_SKB_REDIRECTED_BYTE, SKB_REDIRECTED_SHIFT, SKB_REDIRECTED_MASK);
#else
    return 0;
#endif
}

/*
 * Whether generic XDP will copy/linearize this skb, evaluated where skb->data is at the network
 * header (net:netif_receive_skb, do_xdp_generic entry):
 *     cloned-and-shared || nonlinear || headroom < XDP_PACKET_HEADROOM
 * headroom = data - head before 6.9; from 6.9 the kernel measures it after pushing the MAC header,
 * i.e. the MAC header offset (XDP_HEADROOM_AFTER_MAC_PUSH).
 */
static __always_inline int xdp_copy_needed(void *skb)
{
    u32 data_len = 0;
    void *head = 0, *data = 0;
    bpf_probe_read_kernel(&data_len, sizeof data_len, (char *)skb + OFF_SKB_DATA_LEN);
    bpf_probe_read_kernel(&head, sizeof head, (char *)skb + OFF_SKB_HEAD);
    bpf_probe_read_kernel(&data, sizeof data, (char *)skb + OFF_SKB_DATA);
    u64 headroom = (u64)data - (u64)head;
#if XDP_HEADROOM_AFTER_MAC_PUSH
    u16 mac_header = 0;
    bpf_probe_read_kernel(&mac_header, sizeof mac_header, (char *)skb + OFF_SKB_MAC_HEADER);
    if (mac_header != 0xffff)
        headroom = mac_header;
#endif
    if (data_len != 0 || headroom < SEG_XDP_PACKET_HEADROOM)
        return 1;
    if (skb_bits(skb, OFF_SKB_CLONED_BYTE, SKB_CLONED_SHIFT, SKB_CLONED_MASK)) {
        void *shinfo = skb_shinfo_of(skb);
        u32 dataref = 0;
        if (shinfo)
            bpf_probe_read_kernel(&dataref, sizeof dataref, (char *)shinfo + OFF_SHINFO_DATAREF);
        return (dataref & 0xffff) != 1;
    }
    return 0;
}
