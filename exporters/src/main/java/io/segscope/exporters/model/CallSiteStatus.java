package io.segscope.exporters.model;

/**
 * Whether the probes found one of the kernel call sites where software segmentation is recognised
 * (tracepoint mode: the function whose code frees the original super-packet; kprobe mode: the caller of
 * {@code __skb_gso_segment}). An unresolved one is a place this kernel has no such code (a qdisc or
 * module that is not built or not loaded at the start), or inlined where segscope does not look.
 *
 * @param callSite the kernel's call site, e.g. {@code validate_xmit_skb}, {@code tbf_segment}
 * @param site the site label segmentations found there carry ({@code xmit}, {@code ip_output_mtu}, ...)
 * @param function the kernel function holding it on this kernel ({@code ""} when unresolved), e.g.
 *     {@code validate_xmit_skb.isra.0} or {@code __ip_finish_output} where it is inlined
 * @param resolved whether it was found in kallsyms
 */
public record CallSiteStatus(String callSite, String site, String function, boolean resolved) {
  public CallSiteStatus {
    Checks.notBlank(callSite, "CallSiteStatus.callSite");
    Checks.notBlank(site, "CallSiteStatus.site");
    function = Checks.notNull(function, "CallSiteStatus.function");
    if (resolved == function.isEmpty()) {
      throw new IllegalArgumentException("CallSiteStatus: resolved " + resolved + " with function '" + function + "'");
    }
  }
}
