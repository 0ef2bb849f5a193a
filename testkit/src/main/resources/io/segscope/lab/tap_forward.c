/*
 * The lab's tap forwarder (a test tool of segscope, not part of the agent): moves frames between two tap
 * devices with their virtio-net headers, GSO metadata intact, the way vhost-net or a hypervisor moves a
 * guest's frames: what one tap transmits (read from its queue) is written into the other, which receives
 * it. Both taps get the offloads a virtio-net guest negotiates (TUNSETOFFLOAD: checksum, TSO4, TSO6), so
 * the kernel hands them super-packets whole, up to their gso_max_size (a tap's tso_max_size is 64 KiB).
 *
 *   tap_forward --a TAP [--b-netns PATH] --b TAP [--seconds S]
 *
 * Attaches to the existing tap A (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR; `ip tuntap add dev A mode tap
 * vnet_hdr`) in the namespace it runs in, then enters the network namespace at PATH (a /run/netns file)
 * and attaches to tap B there. Forwards both ways until S seconds pass (default: until SIGTERM/SIGINT),
 * then prints one JSON line: frames and bytes (virtio header excluded) each way, gso_frames (frames with
 * a GSO type), errors (writes that failed), cpu_user_ns and cpu_system_ns (getrusage of this process).
 * Prints "ready" on stderr once both taps are attached.
 *
 * Exit status: 0 done, 1 a system call failed (message on stderr), 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BUF (256 * 1024)

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static int usage(const char *why) {
    fprintf(stderr, "tap_forward: %s\nusage: tap_forward --a TAP [--b-netns PATH] --b TAP [--seconds S]\n", why);
    return 2;
}

static int attach(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        perror("tap_forward: open /dev/net/tun");
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    if (strlen(name) >= IFNAMSIZ) {
        fprintf(stderr, "tap_forward: name too long: %s\n", name);
        close(fd);
        return -1;
    }
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "tap_forward: TUNSETIFF %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    unsigned int offloads = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
    if (ioctl(fd, TUNSETOFFLOAD, offloads) < 0) {
        fprintf(stderr, "tap_forward: TUNSETOFFLOAD %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

struct way {
    unsigned long long frames, bytes, gso_frames, errors;
};

/* One read from `from` written whole into `to`: 1 moved (or skipped), 0 nothing queued, -1 the read failed. */
static int move(int from, int to, unsigned char *buf, struct way *w) {
    ssize_t n = read(from, buf, BUF);
    if (n < 0) {
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    }
    if ((size_t)n < sizeof(struct virtio_net_hdr)) {
        return 1;
    }
    struct virtio_net_hdr *h = (struct virtio_net_hdr *)buf;
    if (write(to, buf, (size_t)n) != n) {
        w->errors++;
        return 1;
    }
    w->frames++;
    w->bytes += (unsigned long long)n - sizeof(struct virtio_net_hdr);
    if ((h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) != VIRTIO_NET_HDR_GSO_NONE) {
        w->gso_frames++;
    }
    return 1;
}

int main(int argc, char **argv) {
    const char *a = NULL, *b = NULL, *bns = NULL;
    long seconds = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) {
            return usage("missing value");
        }
        if (strcmp(argv[i], "--a") == 0) {
            a = argv[++i];
        } else if (strcmp(argv[i], "--b") == 0) {
            b = argv[++i];
        } else if (strcmp(argv[i], "--b-netns") == 0) {
            bns = argv[++i];
        } else if (strcmp(argv[i], "--seconds") == 0) {
            char *end;
            seconds = strtol(argv[++i], &end, 10);
            if (*end != '\0' || seconds < 0 || seconds > 86400) {
                return usage("bad --seconds");
            }
        } else {
            return usage("unknown argument");
        }
    }
    if (a == NULL || b == NULL) {
        return usage("--a and --b are required");
    }
    int fa = attach(a);
    if (fa < 0) {
        return 1;
    }
    if (bns != NULL) {
        int ns = open(bns, O_RDONLY | O_CLOEXEC);
        if (ns < 0 || setns(ns, CLONE_NEWNET) < 0) {
            fprintf(stderr, "tap_forward: enter %s: %s\n", bns, strerror(errno));
            return 1;
        }
        close(ns);
    }
    int fb = attach(b);
    if (fb < 0) {
        return 1;
    }
    fcntl(fa, F_SETFL, O_NONBLOCK);
    fcntl(fb, F_SETFL, O_NONBLOCK);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (seconds > 0) {
        sigaction(SIGALRM, &sa, NULL);
        alarm((unsigned int)seconds);
    }
    unsigned char *buf = malloc(BUF);
    if (buf == NULL) {
        perror("tap_forward: malloc");
        return 1;
    }
    fprintf(stderr, "ready\n");
    struct way ab = {0}, ba = {0};
    struct pollfd p[2] = {{.fd = fa, .events = POLLIN}, {.fd = fb, .events = POLLIN}};
    while (!stop) {
        int r = poll(p, 2, 200);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("tap_forward: poll");
            return 1;
        }
        /* drain up to 64 frames a side per wakeup, so one busy direction cannot starve the other */
        for (int i = 0, m = 1; i < 64 && m > 0 && (p[0].revents & POLLIN); i++) {
            if ((m = move(fa, fb, buf, &ab)) < 0) {
                perror("tap_forward: read");
                return 1;
            }
        }
        for (int i = 0, m = 1; i < 64 && m > 0 && (p[1].revents & POLLIN); i++) {
            if ((m = move(fb, fa, buf, &ba)) < 0) {
                perror("tap_forward: read");
                return 1;
            }
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"a_to_b_frames\":%llu,\"a_to_b_bytes\":%llu,\"a_to_b_gso_frames\":%llu,\"b_to_a_frames\":%llu,"
           "\"b_to_a_bytes\":%llu,\"errors\":%llu,\"cpu_user_ns\":%lld,\"cpu_system_ns\":%lld}\n",
           ab.frames, ab.bytes, ab.gso_frames, ba.frames, ba.bytes, ab.errors + ba.errors,
           (long long)ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL,
           (long long)ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL);
    return 0;
}
