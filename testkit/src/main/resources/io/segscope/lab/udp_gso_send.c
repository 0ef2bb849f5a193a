/*
 * The lab's UDP GSO sender and sink (a test tool of segscope, not part of the agent).
 *
 *   udp_gso_send send --dst ADDR --port P [--gso BYTES] [--size BYTES] [--seconds S] [--count N]
 *       sends super-packets of SIZE payload bytes with UDP_SEGMENT = GSO (the kernel cuts each into
 *       ceil(SIZE / GSO) datagrams, in software when the device cannot), for S seconds or N sends,
 *       then prints one JSON line: sends, segments, bytes, errors, cpu_ns (this process, user + system,
 *       CLOCK_PROCESS_CPUTIME_ID), wall_ns.
 *   udp_gso_send sink --bind ADDR --port P [--seconds S] [--gro 1]
 *       receives until SIGTERM/SIGINT or S seconds, then prints one JSON line: datagrams, bytes.
 *       Prints "listening" on stderr once bound. --gro 1 asks for GRO'd datagrams (UDP_GRO): the kernel
 *       then hands super-packets over whole, with their segment size in a control message, instead of
 *       cutting them on receive; datagrams still counts the segments.
 *
 * Exit status: 0 done, 1 a system call failed (message on stderr), 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static int usage(const char *why) {
    fprintf(stderr, "udp_gso_send: %s\n"
                    "usage: udp_gso_send send --dst ADDR --port P [--gso BYTES] [--size BYTES] [--seconds S] [--count N]\n"
                    "       udp_gso_send sink --bind ADDR --port P [--seconds S] [--gro 1]\n", why);
    return 2;
}

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
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

static int resolve(const char *addr, const char *port, struct sockaddr_storage *ss, socklen_t *len) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(addr, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "udp_gso_send: resolve %s: %s\n", addr, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        return usage("missing mode (send or sink)");
    }
    const char *mode = argv[1], *addr = NULL, *port = NULL;
    long gso = 1400, size = 63000, seconds = 0, count = 0, gro = 0;
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc) {
            return usage("option without a value");
        }
        const char *k = argv[i], *v = argv[i + 1];
        long tmp;
        if (!strcmp(k, "--dst") || !strcmp(k, "--bind")) {
            addr = v;
        } else if (!strcmp(k, "--port")) {
            if (parse_long(v, 1, 65535, &tmp)) return usage("--port must be 1..65535");
            port = v;
        } else if (!strcmp(k, "--gso")) {
            if (parse_long(v, 1, 65507, &gso)) return usage("--gso must be 1..65507");
        } else if (!strcmp(k, "--size")) {
            if (parse_long(v, 1, 65507, &size)) return usage("--size must be 1..65507");
        } else if (!strcmp(k, "--seconds")) {
            if (parse_long(v, 1, 86400, &seconds)) return usage("--seconds must be 1..86400");
        } else if (!strcmp(k, "--gro")) {
            if (parse_long(v, 0, 1, &gro)) return usage("--gro must be 0 or 1");
        } else if (!strcmp(k, "--count")) {
            if (parse_long(v, 1, 1L << 40, &count)) return usage("--count must be positive");
        } else {
            return usage("unknown option");
        }
    }
    if (!addr || !port) {
        return usage("--dst/--bind and --port are required");
    }
    struct sockaddr_storage ss;
    socklen_t len;
    if (resolve(addr, port, &ss, &len)) {
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    int fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_UDP);
    if (fd < 0) {
        perror("udp_gso_send: socket");
        return 1;
    }

    if (!strcmp(mode, "sink")) {
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        int big = 8 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
        if (bind(fd, (struct sockaddr *)&ss, len)) {
            perror("udp_gso_send: bind");
            return 1;
        }
        if (gro) {
            int on = 1;
            if (setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on))) {
                perror("udp_gso_send: setsockopt UDP_GRO");
                return 1;
            }
        }
        fprintf(stderr, "listening\n");
        if (seconds) alarm((unsigned)seconds);
        static char buf[65536];
        unsigned long long datagrams = 0, bytes = 0;
        while (!stop) {
            char control[64];
            struct iovec iov = {buf, sizeof(buf)};
            struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                 .msg_controllen = sizeof(control)};
            ssize_t n = recvmsg(fd, &msg, 0);
            if (n < 0) {
                if (errno == EINTR) continue;
                perror("udp_gso_send: recv");
                return 1;
            }
            /* a GRO'd datagram says its segment size: it stands for ceil(n / size) datagrams */
            int segment = 0;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                    memcpy(&segment, CMSG_DATA(c), sizeof(segment));
                }
            }
            datagrams += segment > 0 ? ((unsigned long long)n + (unsigned)segment - 1) / (unsigned)segment : 1;
            bytes += (unsigned long long)n;
        }
        printf("{\"datagrams\":%llu,\"bytes\":%llu}\n", datagrams, bytes);
        return 0;
    }
    if (strcmp(mode, "send")) {
        return usage("mode must be send or sink");
    }
    if (!seconds && !count) {
        return usage("--seconds or --count is required");
    }
    int seg = (int)gso;
    if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
        perror("udp_gso_send: setsockopt UDP_SEGMENT");
        return 1;
    }
    if (connect(fd, (struct sockaddr *)&ss, len)) {
        perror("udp_gso_send: connect");
        return 1;
    }
    char *payload = calloc(1, (size_t)size);
    if (!payload) {
        perror("udp_gso_send: calloc");
        return 1;
    }
    if (seconds) alarm((unsigned)seconds);
    long per_send = (size + gso - 1) / gso;
    unsigned long long sends = 0, errors = 0;
    int64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), wall0 = now_ns(CLOCK_MONOTONIC);
    while (!stop && (!count || (long)sends < count)) {
        ssize_t n = send(fd, payload, (size_t)size, 0);
        if (n == (ssize_t)size) {
            sends++;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == ECONNREFUSED || errno == ENOBUFS || errno == EAGAIN)) {
            errors++; /* an ICMP error from an earlier datagram, or a full queue: not fatal */
        } else {
            perror("udp_gso_send: send");
            return 1;
        }
    }
    int64_t cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = now_ns(CLOCK_MONOTONIC) - wall0;
    printf("{\"sends\":%llu,\"segments\":%llu,\"bytes\":%llu,\"errors\":%llu,\"cpu_ns\":%lld,\"wall_ns\":%lld}\n",
           sends, sends * (unsigned long long)per_send, sends * (unsigned long long)size, errors,
           (long long)cpu, (long long)wall);
    return 0;
}
