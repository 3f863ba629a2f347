package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ConcurrencyTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void twoContainersOnOneTopicDeliverEveryMessageExactlyOnce() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		AtomicInteger total = new AtomicInteger();
		DelayedMessageHandler<Integer> handler = (payload, message) -> {
			deliveries.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			total.incrementAndGet();
		};
		ListenerOptions options = ListenerOptions.builder().concurrency(4).batchSize(50).build();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("shared", Integer.class, handler, options));
		this.fixture.consumer().listeners().register(ListenerRegistration.of("shared", Integer.class, handler, options));

		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			requests.add(ScheduleRequest.builder("shared", i).id("m-" + i).delay(Duration.ofMillis(i % 500)).build());
		}
		this.queue.scheduleAll(requests);

		await().atMost(Duration.ofSeconds(60)).until(() -> total.get() >= 2000
				&& RedisFixture.keysOf(redis.get(), "shared").isEmpty());
		assertThat(deliveries).hasSize(2000);
		assertThat(deliveries.values()).allMatch((count) -> count.get() == 1);
		assertThat(total.get()).isEqualTo(2000);
	}

}
