package io.segscope.probes.load;

import io.segscope.probes.sys.Bpf;

/**
 * One attached program: the fd whose closing detaches it (a BPF link/raw tracepoint fd, or a perf
 * event fd for classic tracepoints and kprobes — PMU kprobes vanish with their fd, so nothing is left
 * in tracefs). Detaching never closes the program.
 */
public final class Attachment implements AutoCloseable {
  private final String program;
  private final AttachPoint point;
  private int fd;

  Attachment(String program, AttachPoint point, int fd) {
    this.program = program;
    this.point = point;
    this.fd = fd;
  }

  public String program() {
    return program;
  }

  public AttachPoint point() {
    return point;
  }

  /** Whether it is still attached. */
  public synchronized boolean attached() {
    return fd >= 0;
  }

  /** Detaches; idempotent. Returns "" or what went wrong. */
  public synchronized String detach() {
    if (fd < 0) {
      return "";
    }
    String problem = Bpf.close(fd);
    fd = -1;
    return problem.isEmpty() ? "" : "detach " + point.describe() + ": " + problem;
  }

  @Override
  public void close() {
    detach();
  }

  @Override
  public String toString() {
    return program + "@" + point.describe() + (attached() ? "" : " (detached)");
  }
}
