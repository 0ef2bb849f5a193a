package io.segscope.lab;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class or method as a namespace-lab test: JUnit tag {@code lab} plus {@link LabExtension},
 * which checks the prerequisites (skip with the reason, fail when {@code CI=true}) and injects a fresh
 * {@link Lab} parameter that is closed after the test, pass or fail. Combine with {@code @Test}.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("lab")
@ExtendWith(LabExtension.class)
public @interface LabTest {
}
