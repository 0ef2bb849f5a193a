package io.segscope.agent.inventory;

import com.sun.jna.Native;
import io.segscope.agent.inventory.model.Netns;
import io.segscope.agent.netlink.NetlinkException;
import io.segscope.host.sys.Errno;
import io.segscope.host.sys.Libc;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One dedicated platform thread that enters network namespaces with setns(2). Work submitted with
 * {@link #call} runs on that thread inside the namespace (typically: opening sockets, which then
 * stay bound to it), after which the thread returns to the namespace it started in. No other
 * thread ever changes namespace.
 *
 * <p>The namespace entered is checked by inode after setns, so a /proc/PID path that a recycled
 * PID now points elsewhere is refused. If returning home fails, the thread is retired and every
 * later call fails (it would otherwise run later work in a foreign namespace).
 */
public final class NetnsThread implements AutoCloseable {
  private static final Path THREAD_NS = Path.of("/proc/thread-self/ns/net");

  private final ExecutorService executor;
  private final int homeFd;
  private final long homeInode;
  private volatile String broken;

  public NetnsThread(String name) {
    executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    int[] home = new int[1];
    long[] inode = new long[1];
    try {
      executor.submit(() -> {
        home[0] = Libc.INSTANCE.open(THREAD_NS.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
        if (home[0] < 0) {
          throw NetlinkException.errno("open own namespace " + THREAD_NS, Native.getLastError());
        }
        inode[0] = NetnsDiscovery.inode(THREAD_NS);
        return null;
      }).get();
    } catch (InterruptedException | ExecutionException e) {
      executor.shutdownNow();
      throw new NetlinkException("start namespace thread " + name + ": " + rootMessage(e), e);
    }
    homeFd = home[0];
    homeInode = inode[0];
  }

  /** The inode of the namespace the thread returns to between calls. */
  public long homeInode() {
    return homeInode;
  }

  /**
   * Runs {@code work} inside {@code ns} on the namespace thread and returns its result. Exceptions
   * of {@code work} are rethrown (unchecked ones as they are, checked ones wrapped).
   */
  public <T> T call(Netns ns, Callable<T> work) {
    if (broken != null) {
      throw new NetlinkException("enter namespace " + ns.inode() + ": namespace thread retired: " + broken);
    }
    Future<T> f = executor.submit(() -> inNamespace(ns, work));
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NetlinkException("enter namespace " + ns.inode() + ": interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      if (c instanceof Error) {
        throw (Error) c;
      }
      throw new NetlinkException("run in namespace " + ns.inode() + ": " + c, c);
    }
  }

  private <T> T inNamespace(Netns ns, Callable<T> work) throws Exception {
    if (ns.inode() == homeInode) {
      return work.call();
    }
    Libc c = Libc.INSTANCE;
    int fd = c.open(ns.path().toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
    if (fd < 0) {
      throw NetlinkException.errno("open namespace " + ns.inode() + " at " + ns.path(), Native.getLastError());
    }
    try {
      if (c.setns(fd, Libc.CLONE_NEWNET) != 0) {
        throw NetlinkException.errno("enter namespace " + ns.inode() + " (setns " + ns.path() + ")",
            Native.getLastError());
      }
    } finally {
      c.close(fd);
    }
    try {
      long entered = NetnsDiscovery.inode(THREAD_NS);
      if (entered != ns.inode()) {
        throw new NetlinkException("enter namespace " + ns.inode() + ": " + ns.path()
            + " now refers to namespace " + entered + " (process gone or PID reused)");
      }
      return work.call();
    } finally {
      if (c.setns(homeFd, Libc.CLONE_NEWNET) != 0) {
        broken = "return to namespace " + homeInode + ": " + Errno.describe(Native.getLastError());
        executor.shutdown();
      }
    }
  }

  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Libc.INSTANCE.close(homeFd);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
