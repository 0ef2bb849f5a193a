package io.segscope.agent.inventory.model;

import java.nio.file.Path;

/**
 * A network namespace found on the host.
 *
 * @param inode the nsfs inode number: the namespace's identity, equal to the kernel's
 *     {@code net->ns.inum} that BPF probes report as the netns label
 * @param name its name under /run/netns (or another configured directory), "" when it has none
 * @param path a file that refers to it and can be opened for setns(2) (the named bind mount when
 *     there is one, else /proc/PID/ns/net of one process in it)
 * @param root whether it is the host's initial namespace
 * @param cookie the namespace's cookie (SO_NETNS_COOKIE): unique for the life of the host, while the
 *     inode can be reused by a later namespace; 0 until read, or on kernels without cookies
 */
public record Netns(long inode, String name, Path path, boolean root, long cookie) {
  /** A namespace whose cookie is not known (yet). */
  public Netns(long inode, String name, Path path, boolean root) {
    this(inode, name, path, root, 0);
  }

  /** This namespace with its cookie. */
  public Netns withCookie(long cookie) {
    return new Netns(inode, name, path, root, cookie);
  }
}
