/**
 * What crosses the kernel boundary: the keys, values and enumerations the BPF programs
 * ({@code bpf/common.h}) and Java share, their byte layouts, and the decoded per-device readings.
 * {@code ContractTest} parses {@code common.h} and fails when the two sides disagree.
 */
package io.segscope.probes.wire;
