package io.segscope.probes.btf;

import org.junit.jupiter.api.Assumptions;

/** Lab prerequisites: a missing one skips the test with its reason, or fails it when CI=true. */
final class LabPrerequisites {
    private LabPrerequisites() {
    }

    static void require(boolean present, String reason) {
        if (present) {
            return;
        }
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError("lab prerequisite missing (CI=true, so this fails): " + reason);
        }
        Assumptions.abort("lab prerequisite missing: " + reason);
    }
}
