package io.segscope.lab;

/** A lab device: its name and the namespace it lives in. */
public record DeviceAt(Netns ns, String name) {
}
