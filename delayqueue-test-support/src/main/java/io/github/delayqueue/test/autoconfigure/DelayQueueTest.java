package io.github.delayqueue.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.autoconfigure.OverrideAutoConfiguration;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.core.annotation.AliasFor;
import org.springframework.core.env.Environment;
import org.springframework.test.context.BootstrapWith;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A test of delayed listeners that brings up <strong>only</strong> what the queue needs: the Redis connection (to a
 * test Redis with no set-up, see {@link AutoConfigureTestRedis @AutoConfigureTestRedis}), Jackson, validation where
 * present, delayqueue's auto-configuration, and a {@link io.github.delayqueue.test.DelayQueueTester DelayQueueTester}
 * bean that moves time forward on the Redis clock and tells what the listeners received. Component scanning finds
 * only {@code DelayedListenerConfigurer} beans and Jackson modules: the listeners come from the test's own
 * configuration ({@code @Import(OrderTimeoutListener.class)}, a nested {@code @TestConfiguration}, or
 * {@link #includeFilters()}).
 *
 * <pre class="code">
 * &#64;DelayQueueTest
 * &#64;Import(OrderTimeoutListener.class)
 * class OrderTimeoutListenerTests {
 *
 *     &#64;Autowired DelayedQueue queue;
 *     &#64;Autowired DelayQueueTester tester;
 *
 *     &#64;Test
 *     void firesAfterThirtyMinutes() {
 *         queue.schedule("order-timeout", "order-42", new OrderTimeout("order-42"), Duration.ofMinutes(30));
 *         tester.advance("order-timeout", Duration.ofMinutes(30));
 *         tester.awaitIdle("order-timeout");
 *         assertThat(tester.payloads("order-timeout", OrderTimeout.class))
 *             .containsExactly(new OrderTimeout("order-42"));
 *     }
 * }
 * </pre>
 *
 * @since 1.0.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@BootstrapWith(DelayQueueTestContextBootstrapper.class)
@ExtendWith(SpringExtension.class)
@OverrideAutoConfiguration(enabled = false)
@AutoConfigureDelayQueue
@AutoConfigureTestRedis
@AutoConfigureDelayQueueTester
@ImportAutoConfiguration
public @interface DelayQueueTest {

	/**
	 * Properties in form {@literal key=value} that should be added to the Spring {@link Environment} before the test
	 * runs.
	 * @return the properties to add
	 */
	String[] properties() default {};

	/**
	 * Whether default filtering should be used with {@link SpringBootApplication @SpringBootApplication}. By default
	 * only {@code DelayedListenerConfigurer} beans and Jackson modules are included.
	 * @see #includeFilters()
	 * @see #excludeFilters()
	 * @return whether default filters should be used
	 */
	boolean useDefaultFilters() default true;

	/**
	 * A set of include filters which can be used to add otherwise filtered beans (listeners, say) to the application
	 * context.
	 * @return include filters to apply
	 */
	Filter[] includeFilters() default {};

	/**
	 * A set of exclude filters which can be used to filter beans that would otherwise be added to the application
	 * context.
	 * @return exclude filters to apply
	 */
	Filter[] excludeFilters() default {};

	/**
	 * Auto-configuration exclusions that should be applied for this test.
	 * @return auto-configuration exclusions to apply
	 */
	@AliasFor(annotation = ImportAutoConfiguration.class, attribute = "exclude")
	Class<?>[] excludeAutoConfiguration() default {};

}
