/*
 * The lab's tap injector (a test tool of segscope, not part of the agent): plays a virtual machine
 * that hands its host TCP super-packets through a tap device with virtio-net headers, the way
 * qemu/vhost do (the hypervisor shape of a gso_max_size mismatch: guest -> tap -> bridge -> uplink).
 *
 *   tap_vnet_inject --dev TAP --src-mac MAC --dst-mac MAC --src IPV4 --dst IPV4
 *                   [--payload BYTES] [--mss BYTES] [--seconds S] [--count N]
 *
 * Attaches to the existing tap device TAP (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR; create it with
 * `ip tuntap add dev TAP mode tap vnet_hdr`) and writes, for S seconds or N frames, one frame per
 * write: a struct virtio_net_hdr (NEEDS_CSUM, GSO_TCPV4, gso_size = MSS) followed by an Ethernet +
 * IPv4 (DF) + TCP frame of PAYLOAD bytes of data (sequence numbers advance; the TCP checksum field
 * holds the pseudo-header sum, as for CHECKSUM_PARTIAL). The kernel marks such skbs SKB_GSO_DODGY
 * with gso_segs = 0. Then prints one JSON line: sends (frames written), segments (the
 * ceil(PAYLOAD / MSS) segments each would be cut into, times sends), bytes (frame bytes written,
 * virtio header excluded), errors (writes that failed), wall_ns.
 *
 * Exit status: 0 done, 1 a system call failed (message on stderr), 2 bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define ETH_LEN 14
#define IP_LEN 20
#define TCP_LEN 20
#define HDRS (ETH_LEN + IP_LEN + TCP_LEN)

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static int usage(const char *why) {
    fprintf(stderr, "tap_vnet_inject: %s\n"
                    "usage: tap_vnet_inject --dev TAP --src-mac MAC --dst-mac MAC --src IPV4 --dst IPV4\n"
                    "                       [--payload BYTES] [--mss BYTES] [--seconds S] [--count N]\n", why);
    return 2;
}

static int parse_long(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < min || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_mac(const char *s, uint8_t mac[6]) {
    unsigned int b[6];
    char extra;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &extra) != 6) {
        return -1;
    }
    for (int i = 0; i < 6; i++) {
        mac[i] = (uint8_t)b[i];
    }
    return 0;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One's-complement sum of 16-bit words, folded. */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s) {
    for (size_t i = 0; i + 1 < n; i += 2) {
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    }
    if (n & 1) {
        s += (uint32_t)(p[n - 1] << 8);
    }
    return s;
}

static uint16_t fold(uint32_t s) {
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return (uint16_t)s;
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int main(int argc, char **argv) {
    const char *dev = NULL, *srcmac = NULL, *dstmac = NULL, *src = NULL, *dst = NULL;
    long payload = 63000, mss = 1448, seconds = 0, count = 0;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            return usage("option without a value");
        }
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--dev")) {
            dev = v;
        } else if (!strcmp(k, "--src-mac")) {
            srcmac = v;
        } else if (!strcmp(k, "--dst-mac")) {
            dstmac = v;
        } else if (!strcmp(k, "--src")) {
            src = v;
        } else if (!strcmp(k, "--dst")) {
            dst = v;
        } else if (!strcmp(k, "--payload")) {
            if (parse_long(v, 1, 65535 - IP_LEN - TCP_LEN, &payload)) return usage("--payload must be 1..65495");
        } else if (!strcmp(k, "--mss")) {
            if (parse_long(v, 1, 65495, &mss)) return usage("--mss must be 1..65495");
        } else if (!strcmp(k, "--seconds")) {
            if (parse_long(v, 1, 86400, &seconds)) return usage("--seconds must be 1..86400");
        } else if (!strcmp(k, "--count")) {
            if (parse_long(v, 1, 1L << 40, &count)) return usage("--count must be positive");
        } else {
            return usage("unknown option");
        }
    }
    if (!dev || !srcmac || !dstmac || !src || !dst) {
        return usage("--dev, --src-mac, --dst-mac, --src and --dst are required");
    }
    if (strlen(dev) >= IFNAMSIZ) {
        return usage("--dev: an interface name has at most 15 bytes");
    }
    if (!seconds && !count) {
        return usage("--seconds or --count is required");
    }
    uint8_t smac[6], dmac[6];
    struct in_addr sip, dip;
    if (parse_mac(srcmac, smac) || parse_mac(dstmac, dmac)) {
        return usage("--src-mac/--dst-mac must be six hex bytes separated by ':'");
    }
    if (inet_pton(AF_INET, src, &sip) != 1 || inet_pton(AF_INET, dst, &dip) != 1) {
        return usage("--src/--dst must be IPv4 addresses");
    }

    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        perror("tap_vnet_inject: open /dev/net/tun");
        return 1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "tap_vnet_inject: attach to tap %s: %s\n", dev, strerror(errno));
        return 1;
    }

    size_t frame_len = HDRS + (size_t)payload;
    uint8_t *frame = calloc(1, frame_len);
    if (!frame) {
        perror("tap_vnet_inject: allocate frame");
        return 1;
    }
    uint8_t *eth = frame, *ip = frame + ETH_LEN, *tcp = ip + IP_LEN;
    memcpy(eth, dmac, 6);
    memcpy(eth + 6, smac, 6);
    put16(eth + 12, 0x0800);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(IP_LEN + TCP_LEN + payload));
    put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = 6; /* TCP */
    memcpy(ip + 12, &sip, 4);
    memcpy(ip + 16, &dip, 4);
    put16(tcp + 0, 40000);
    put16(tcp + 2, 9); /* discard: nothing listens */
    tcp[12] = (TCP_LEN / 4) << 4;
    tcp[13] = 0x18; /* PSH, ACK */
    put16(tcp + 14, 65535);
    for (long i = 0; i < payload; i++) {
        tcp[TCP_LEN + i] = (uint8_t)i;
    }

    struct virtio_net_hdr vh;
    memset(&vh, 0, sizeof vh);
    vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vh.hdr_len = HDRS;
    vh.gso_size = (uint16_t)mss;
    vh.csum_start = ETH_LEN + IP_LEN;
    vh.csum_offset = 16;

    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    if (seconds) {
        alarm((unsigned)seconds);
    }
    unsigned long long sends = 0, errors = 0, bytes = 0;
    uint32_t seq = 1;
    uint16_t id = 1;
    int64_t t0 = now_ns();
    while (!stop && (!count || (long)sends < count)) {
        put16(ip + 4, id++);
        put16(ip + 10, 0);
        put16(ip + 10, (uint16_t)~fold(sum16(ip, IP_LEN, 0)));
        put32(tcp + 4, seq);
        /* pseudo-header sum only: the checksum is completed from csum_start (CHECKSUM_PARTIAL) */
        uint8_t pseudo[12];
        memcpy(pseudo, &sip, 4);
        memcpy(pseudo + 4, &dip, 4);
        pseudo[8] = 0;
        pseudo[9] = 6;
        put16(pseudo + 10, (uint16_t)(TCP_LEN + payload));
        put16(tcp + 16, fold(sum16(pseudo, sizeof pseudo, 0)));
        struct iovec iov[2] = {{&vh, sizeof vh}, {frame, frame_len}};
        ssize_t n = writev(fd, iov, 2);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errors++ == 0) {
                fprintf(stderr, "tap_vnet_inject: write to %s: %s\n", dev, strerror(errno));
            }
            if (errno != EAGAIN && errno != ENOBUFS) {
                return 1;
            }
            continue;
        }
        sends++;
        bytes += frame_len;
        seq += (uint32_t)payload;
    }
    int64_t wall = now_ns() - t0;
    unsigned long long per = (unsigned long long)((payload + mss - 1) / mss);
    printf("{\"sends\":%llu,\"segments\":%llu,\"bytes\":%llu,\"errors\":%llu,\"wall_ns\":%lld}\n", sends,
           sends * per, bytes, errors, (long long)wall);
    return 0;
}
