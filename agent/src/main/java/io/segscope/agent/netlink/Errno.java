package io.segscope.agent.netlink;

import java.util.Map;

/** Errno names and texts, without depending on the native library for the common ones. */
public final class Errno {
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int ESRCH = 3;
  public static final int EINTR = 4;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EACCES = 13;
  public static final int EBUSY = 16;
  public static final int ENODEV = 19;
  public static final int EINVAL = 22;
  public static final int ENOBUFS = 105;
  public static final int EOPNOTSUPP = 95;

  private static final Map<Integer, String> NAMES = Map.ofEntries(
      Map.entry(EPERM, "EPERM"), Map.entry(ENOENT, "ENOENT"), Map.entry(ESRCH, "ESRCH"),
      Map.entry(EINTR, "EINTR"), Map.entry(EBADF, "EBADF"), Map.entry(EAGAIN, "EAGAIN"),
      Map.entry(ENOMEM, "ENOMEM"), Map.entry(EACCES, "EACCES"), Map.entry(EBUSY, "EBUSY"),
      Map.entry(ENODEV, "ENODEV"), Map.entry(EINVAL, "EINVAL"), Map.entry(ENOBUFS, "ENOBUFS"),
      Map.entry(EOPNOTSUPP, "EOPNOTSUPP"));

  private Errno() {}

  /** "ENODEV (No such device)" or "errno 1234 (...)". */
  public static String describe(int errno) {
    String name = NAMES.getOrDefault(errno, "errno " + errno);
    String text;
    try {
      text = LibC.INSTANCE.strerror(errno);
    } catch (RuntimeException | LinkageError e) {
      text = null;
    }
    return text == null ? name : name + " (" + text + ")";
  }
}
