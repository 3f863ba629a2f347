package io.github.delayqueue.actuate;

import java.time.Duration;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.listener.ListenerRegistration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class DelayQueueHealthIndicatorTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.appendOnly();

	private RedisFixture fixture;

	private DelayQueueHealthIndicator health;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of("watched", String.class, new Recorder<>()));
		this.health = new DelayQueueHealthIndicator(this.fixture.queue(consumer.store()).getAdmin(), consumer.scheduler(), consumer.listeners().registry());
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void healthGoesDownWithRedisAndUpAgainAfterItRestarts() {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.health.health(true).getStatus() == Status.UP);
		assertThat(this.health.health(true).getDetails()).containsEntry("wakeSubscription", "subscribed")
			.containsKey("listeners");

		redis.get().stop();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.health.health(true).getStatus() == Status.DOWN);

		redis.get().start();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.health.health(true).getStatus() == Status.UP);
	}

}
