package io.github.delayqueue.actuate;

import java.time.Duration;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator on an auto-configured application, while its Redis goes away and comes back.
 */
class DelayQueueHealthIndicatorTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	@Test
	void healthGoesDownWithRedisAndUpAgainAfterItRestarts() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
					"spring.data.redis.port=" + redis.get().port(),
					"spring.data.redis.database=" + redis.get().database(), "spring.data.redis.timeout=2s",
					"delayqueue.wake-up.poll-interval=200ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
				registry.registerListenerContainer(
						SimpleDelayedListenerEndpoint.of("watched", String.class, (payload, message) -> {
						}), context.getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
								DelayedListenerContainerFactory.class),
						true);
				DelayQueueHealthIndicator health = new DelayQueueHealthIndicator(
						context.getBean(DelayedQueueAdmin.class), context.getBean(WakeUpTimer.class), registry);

				await().atMost(Duration.ofSeconds(10)).until(() -> health.health(true).getStatus() == Status.UP);
				assertThat(health.health(true).getDetails()).containsEntry("wakeSubscription", "subscribed")
					.containsKey("listeners");

				redis.get().stop();
				await().atMost(Duration.ofSeconds(20)).until(() -> health.health(true).getStatus() == Status.DOWN);

				redis.get().start();
				await().atMost(Duration.ofSeconds(30)).until(() -> health.health(true).getStatus() == Status.UP);
			});
	}

}
