package io.segscope.lab;

/**
 * A named network namespace made by a {@link Lab}.
 *
 * @param name  its name under /run/netns (the lab prefix, a dash, the role)
 * @param inode the namespace's inode number ({@code stat -L -c %i /run/netns/<name>}), which is how the
 *              agent labels it ({@code netns} label)
 */
public record Netns(String name, long inode) {
}
