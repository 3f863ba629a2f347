package io.github.delayqueue.actuate;

import java.time.Duration;

import io.github.delayqueue.build.BootLine;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health check on an auto-configured application, while its Redis goes away and comes back.
 */
class DelayQueueHealthTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	@Test
	void healthGoesDownWithRedisAndUpAgainAfterItRestarts() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
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
				DelayQueueHealth health = new DelayQueueHealth(context.getBean(DelayedQueueAdmin.class),
						context.getBean(WakeUpTimer.class), registry);

				await().atMost(Duration.ofSeconds(10)).until(() -> up(health));
				assertThat(health.check().details()).containsEntry("wakeSubscription", "subscribed")
					.containsKey("listeners");

				redis.get().stop();
				await().atMost(Duration.ofSeconds(20)).until(() -> !up(health));

				redis.get().start();
				await().atMost(Duration.ofSeconds(30)).until(() -> up(health));
			});
	}

	/** Up, as an indicator reports it: a check that throws (Redis does not answer) is down. */
	private static boolean up(DelayQueueHealth health) {
		try {
			return health.check().up();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

}
