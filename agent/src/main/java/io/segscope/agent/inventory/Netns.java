package io.segscope.agent.inventory;

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
 */
public record Netns(long inode, String name, Path path, boolean root) {}
