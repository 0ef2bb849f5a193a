/* The lab's XDP program: lets every packet pass. Built at test time with
 *   clang -O2 -g -target bpf -c xdp_pass.c -o xdp_pass.o
 * and attached in generic mode (S3) with
 *   ip link set dev <dev> xdpgeneric obj xdp_pass.o sec xdp
 * It is not frags-aware (section "xdp", not "xdp.frags"), so generic XDP linearizes nonlinear skbs
 * for it: exactly the cost S3 shows. No headers needed. */
#define SEC(name) __attribute__((section(name), used))
#define XDP_PASS 2

SEC("xdp")
int xdp_pass(void *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
