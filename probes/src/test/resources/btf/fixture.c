/*
 * Source of the BTF test fixtures fixture-le.btf and fixture-be.btf (see README.md).
 * Shapes modelled on the kernel structs segscope reads: anonymous unions and structs,
 * bitfields, a typedef'd anonymous struct member, const/volatile members, arrays,
 * enums (unsigned, signed, 64-bit), functions, a variable, a float and BTF tags.
 */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;

struct net;          /* declared only: becomes a BTF FWD */
struct device_stub;  /* declared only */

typedef struct {
	struct net *net;
} possible_net_t;

struct ns_common {
	void *stashed;
	unsigned int inum;
	int refs;
};

struct net {
	int passive;
	struct ns_common ns;
};

struct packet {
	union {
		struct {
			struct packet *next;
			struct packet *prev;
			union {
				struct device_stub *dev;
				unsigned long dev_scratch;
			};
		};
		int rbnode[6];
	};
	__u32 len;
	__u32 data_len;
	__u16 mac_len;
	__u16 hdr_len;
	__u8 cloned:1,
	     nohdr:1,
	     fclone:2;
	__u8 pkt_type:3;
	__u8 ip_summed:2;
	__u8 ooo_okay:1;
	__u16 protocol;
	const volatile __u32 users;
	unsigned char *head;
	char name[16];
	possible_net_t nd_net;
	struct {
		__u64 features;
		__u64 hw_features;
	} offload;
	double weight;
};

typedef struct packet packet_t;
typedef const packet_t cpacket_t;

union addr {
	__u32 v4;
	__u8 v6[16];
	struct {
		__u16 family;
		__u16 port;
	};
};

enum gso_type {
	GSO_TCPV4 = 1 << 0,
	GSO_DODGY = 1 << 1,
	GSO_TCPV6 = 1 << 4,
	GSO_UDP_L4 = 1 << 17,
};

enum signed_values {
	SV_MINUS_ONE = -1,
	SV_SEVEN = 7,
};

enum wide_values {
	WIDE_LOW = 1,
	WIDE_HIGH = 0x123456789aULL,
	WIDE_TOP = 0xfffffffffffffffeULL,
};

#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))

struct tagged {
	int __user *uptr;
	int plain __tag("member-tag");
} __tag("struct-tag");

struct packet g_packet;
struct net g_net;
cpacket_t *g_cpacket;
union addr g_addr;
struct tagged g_tagged;
enum gso_type g_gso = GSO_TCPV4;
enum signed_values g_signed;
enum wide_values g_wide;
float g_ratio = 0.5f;

int segment_packet(struct packet *restrict skb, __u32 features)
{
	return skb->len + (int)features;
}

static __attribute__((noinline)) int __tag("func-tag") helper(int x)
{
	return x + 1;
}

int call_helper(int x)
{
	return helper(x) + g_tagged.plain;
}
