/*
 * The lab's setter of a device's IPv4 BIG TCP limits (a test tool of segscope, not part of the
 * agent): iproute2 6.1 (Debian 12) has no `gso_ipv4_max_size` / `gro_ipv4_max_size` keywords
 * (they came with 6.3), so this sends the RTM_NEWLINK itself.
 *
 *   link_ipv4_max --dev DEV [--gso BYTES] [--gro BYTES]
 *
 * Sets IFLA_GSO_IPV4_MAX_SIZE (--gso) and/or IFLA_GRO_IPV4_MAX_SIZE (--gro) of DEV in the calling
 * process's network namespace and waits for the kernel's answer.
 * Exit status: 0 done, 1 the kernel refused (its error on stderr), 2 bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* enum values of include/uapi/linux/if_link.h (6.3+), absent from older userspace headers */
#define SEG_IFLA_GSO_IPV4_MAX_SIZE 63
#define SEG_IFLA_GRO_IPV4_MAX_SIZE 64

static int usage(const char *why) {
    fprintf(stderr, "link_ipv4_max: %s\nusage: link_ipv4_max --dev DEV [--gso BYTES] [--gro BYTES]\n", why);
    return 2;
}

static int parse_u32(const char *s, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v == 0 || v > 0xffffffffUL) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static void put_u32(struct nlmsghdr *h, unsigned short type, uint32_t v) {
    struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
    a->rta_type = type;
    a->rta_len = RTA_LENGTH(sizeof v);
    memcpy(RTA_DATA(a), &v, sizeof v);
    h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

int main(int argc, char **argv) {
    const char *dev = NULL;
    uint32_t gso = 0, gro = 0;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            return usage("option without a value");
        }
        if (!strcmp(argv[i], "--dev")) {
            dev = argv[i + 1];
        } else if (!strcmp(argv[i], "--gso")) {
            if (parse_u32(argv[i + 1], &gso)) return usage("--gso must be a positive number of bytes");
        } else if (!strcmp(argv[i], "--gro")) {
            if (parse_u32(argv[i + 1], &gro)) return usage("--gro must be a positive number of bytes");
        } else {
            return usage("unknown option");
        }
    }
    if (!dev || (!gso && !gro)) {
        return usage("--dev and at least one of --gso, --gro are required");
    }
    unsigned int index = if_nametoindex(dev);
    if (!index) {
        fprintf(stderr, "link_ipv4_max: find device %s: %s\n", dev, strerror(errno));
        return 1;
    }
    union {
        struct nlmsghdr h;
        char buf[256];
    } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    req.h.nlmsg_type = RTM_NEWLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.h.nlmsg_seq = 1;
    struct ifinfomsg *ifi = NLMSG_DATA(&req.h);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = (int)index;
    if (gso) put_u32(&req.h, SEG_IFLA_GSO_IPV4_MAX_SIZE, gso);
    if (gro) put_u32(&req.h, SEG_IFLA_GRO_IPV4_MAX_SIZE, gro);

    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        perror("link_ipv4_max: open netlink socket");
        return 1;
    }
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        perror("link_ipv4_max: send RTM_NEWLINK");
        return 1;
    }
    char answer[4096];
    ssize_t n = recv(fd, answer, sizeof answer, 0);
    if (n < 0) {
        perror("link_ipv4_max: read the kernel's answer");
        return 1;
    }
    struct nlmsghdr *h = (struct nlmsghdr *)answer;
    if (!NLMSG_OK(h, (unsigned int)n) || h->nlmsg_type != NLMSG_ERROR) {
        fprintf(stderr, "link_ipv4_max: read the kernel's answer: not an acknowledgement\n");
        return 1;
    }
    struct nlmsgerr *e = NLMSG_DATA(h);
    if (e->error) {
        fprintf(stderr, "link_ipv4_max: set IPv4 GSO/GRO limits of %s: %s\n", dev, strerror(-e->error));
        return 1;
    }
    return 0;
}
