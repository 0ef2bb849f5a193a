package io.segscope.exporters;

import io.prometheus.metrics.model.snapshots.DataPointSnapshot;

/** One series of one family, produced while translating a record. */
record Sample(Family family, DataPointSnapshot point) {}
