package io.segscope.probes.bcc;

import com.sun.jna.Pointer;

/** One thing a module attached, and how to undo it. Detaching never closes the program fd. */
sealed interface Attachment {

  /** Human-readable, e.g. {@code "tracepoint:net:net_dev_queue"}. */
  String description();

  /** Undoes the attachment; returns a problem description, or "" when all went well. */
  String detach(LibBcc bcc);

  /** A tracepoint: the perf event fd {@code bpf_attach_tracepoint} returned. */
  record Tracepoint(String description, int perfFd) implements Attachment {
    @Override
    public String detach(LibBcc bcc) {
      return closePerfEvent(bcc, perfFd, description);
    }
  }

  /** A kprobe or kretprobe: its perf event fd, then the (possibly created) kprobe event. */
  record Kprobe(String description, int perfFd, Pointer eventName) implements Attachment {
    @Override
    public String detach(LibBcc bcc) {
      String problem = closePerfEvent(bcc, perfFd, description);
      int ret = bcc.bpf_detach_kprobe(eventName);
      if (ret < 0) {
        int errno = Errno.ofFailure(ret);
        problem += (problem.isEmpty() ? "" : "; ") + "bpf_detach_kprobe " + eventName.getString(0)
            + ": " + Errno.describe(errno) + " (errno " + errno + ")";
      }
      return problem;
    }
  }

  /** A BPF link (fentry/fexit via {@code bpf_attach_kfunc}, raw tracepoint): closing it detaches. */
  record Link(String description, int linkFd) implements Attachment {
    @Override
    public String detach(LibBcc bcc) {
      int ret = Libc.INSTANCE.close(linkFd);
      if (ret < 0) {
        int errno = Errno.ofFailure(ret);
        return "close link " + description + ": " + Errno.describe(errno) + " (errno " + errno + ")";
      }
      return "";
    }
  }

  private static String closePerfEvent(LibBcc bcc, int perfFd, String description) {
    int ret = bcc.bpf_close_perf_event_fd(perfFd);
    if (ret != 0) {
      int errno = Errno.ofFailure(ret);
      return "bpf_close_perf_event_fd " + description + ": " + Errno.describe(errno) + " (errno "
          + errno + ")";
    }
    return "";
  }
}
