package io.segscope.lab;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension behind {@link LabTest}.
 * <ul>
 *   <li>Before each test: requires root, {@code ip}, {@code ss}, {@code ethtool} and {@code iperf3}; if one is missing
 *       the test is skipped with the reason, or fails when env {@code CI=true}. The first time in a JVM it
 *       also runs {@link Lab#sweepStale()} to clear namespaces of crashed earlier runs.</li>
 *   <li>Resolves a {@link Lab} parameter of a test or {@code @BeforeEach}/{@code @AfterEach} method: one lab
 *       per test, the same instance for all of that test's methods.</li>
 *   <li>After each test, passed or failed, closes the lab and checks {@link Lab#leftovers()}; a teardown
 *       failure or anything left fails the test.</li>
 * </ul>
 */
public final class LabExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(LabExtension.class);
  private static final AtomicBoolean SWEPT = new AtomicBoolean();

  @Override
  public void beforeEach(ExtensionContext context) {
    Prerequisites.requireLab();
    if (SWEPT.compareAndSet(false, true)) {
      List<String> swept = Lab.sweepStale();
      if (!swept.isEmpty()) {
        System.err.println("segscope lab: deleted namespaces left by crashed runs: " + swept);
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Lab.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (!(parameter.getDeclaringExecutable() instanceof Method) || context.getTestMethod().isEmpty()) {
      throw new ParameterResolutionException("resolve Lab for " + parameter.getDeclaringExecutable()
          + ": only test, @BeforeEach and @AfterEach methods get a Lab (one per test)");
    }
    String tag = context.getRequiredTestClass().getSimpleName() + "#" + context.getRequiredTestMethod().getName();
    return context.getStore(STORE).getOrComputeIfAbsent(Lab.class, k -> Lab.create(tag), Lab.class);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Lab lab = context.getStore(STORE).remove(Lab.class, Lab.class);
    if (lab != null) {
      lab.close();
      List<String> left = lab.leftovers();
      if (!left.isEmpty()) {
        throw new LabException("tear down lab " + lab.prefix() + ": still present after close: " + left);
      }
    }
  }
}
