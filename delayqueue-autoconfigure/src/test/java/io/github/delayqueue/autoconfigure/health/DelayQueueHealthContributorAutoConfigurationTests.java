package io.github.delayqueue.autoconfigure.health;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator's auto-configuration of each Boot line, found by the one name both lines give it: these tests
 * run in each line's module ({@code delayqueue-spring-boot3-autoconfigure}, {@code delayqueue-spring-boot4-autoconfigure}),
 * not in this one, which has no health support of its own.
 */
class DelayQueueHealthContributorAutoConfigurationTests {

	private static final String AUTO_CONFIGURATION = "io.github.delayqueue.autoconfigure.health.DelayQueueHealthContributorAutoConfiguration";

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class,
				ClassUtils.resolveClassName(AUTO_CONFIGURATION, null))))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	@Test
	void theIndicatorReportsTheListenersAndTheWakeSubscription() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
			registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("healthy", String.class,
					(payload, message) -> {
					}), context.getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
							DelayedListenerContainerFactory.class),
					true);
			Object indicator = context.getBean("delayqueueHealthIndicator");
			await().atMost(Duration.ofSeconds(10)).until(() -> BootLine.health(indicator).status().equals("UP"));
			assertThat(BootLine.health(indicator).details()).containsEntry("wakeSubscription", "subscribed")
				.containsKey("listeners");
		});
	}

	@Test
	void theIndicatorIsDownWhenRedisDoesNotAnswer() {
		this.runner.withPropertyValues("spring.data.redis.port=" + unusedPort(), "spring.data.redis.timeout=500ms",
				"delayqueue.wake-up.auto-startup=false", "delayqueue.recurring.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BootLine.Health health = BootLine.health(context.getBean("delayqueueHealthIndicator"));
				assertThat(health.status()).isEqualTo("DOWN");
				assertThat(health.details()).containsKey("error");
			});
	}

	@Test
	void theIndicatorBacksOffWhenDisabledOrWithoutDelayqueue() {
		this.runner.withPropertyValues("management.health.delayqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("delayqueueHealthIndicator"));
		this.runner.withPropertyValues("delayqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("delayqueueHealthIndicator")
				.doesNotHaveBean(DelayedQueue.class));
		this.runner.withBean("delayqueueHealthIndicator", String.class, () -> "the application's own")
			.run((context) -> assertThat(context.getBean("delayqueueHealthIndicator")).isEqualTo("the application's own"));
	}

	private static int unusedPort() {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
