package io.segscope.probes.bcc;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** libc calls the lab tests use to make tracepoints fire from this process. */
interface TestLibc extends Library {
  TestLibc INSTANCE = Native.load("c", TestLibc.class);

  int O_WRONLY = 1;

  int getppid();

  int open(String path, int flags, Object... mode);

  long write(int fd, byte[] buffer, long count);

  int close(int fd);
}
