package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A container pauses and resumes its topic through the application's admin, the one place that loops over a topic's
 * partitions: a pause through the container holds every partition of a partitioned topic, in Redis, until resumed.
 */
class ContainerTopicPauseTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final TopicPartitioning FOUR = new TopicPartitioning(Map.of("wide", 4));

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private CountingAdmin admin;

	private WakeUpTimer wakeUpTimer;

	private DelayedListenerContainer container;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.queue.setPartitioning(FOUR);
		this.admin = new CountingAdmin(this.store, this.fixture);
		this.admin.setPartitioning(FOUR);
		this.wakeUpTimer = new WakeUpTimer(this.fixture.connectionFactory(), Duration.ofMillis(5),
				Duration.ofMillis(200));
		this.wakeUpTimer.start();
	}

	@AfterEach
	void tearDown() {
		if (this.container != null) {
			this.container.stop();
		}
		this.wakeUpTimer.stop();
		this.fixture.close();
	}

	private DelayedListenerContainer container(List<String> received) {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(this.store,
				this.fixture.converter(), this.wakeUpTimer);
		factory.setPartitioning(FOUR);
		factory.setAdmin(this.admin);
		factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(2));
		return factory.createListenerContainer(
				SimpleDelayedListenerEndpoint.of("wide", String.class, (payload, message) -> received.add(payload)));
	}

	private List<Boolean> pausedPartitions() {
		return IntStream.range(0, 4)
			.mapToObj((partition) -> this.store.controls().read(TopicKeys.partitionName("wide", partition)).paused())
			.toList();
	}

	@Test
	void aPauseThroughTheContainerHoldsEveryPartitionUntilResumed() {
		List<String> received = new CopyOnWriteArrayList<>();
		this.container = container(received);
		assertThat(this.container.getAdmin()).as("set by the factory").isSameAs(this.admin);
		this.container.start();
		this.queue.schedule("wide", "first", "first", Duration.ZERO);
		await().atMost(WAIT).until(() -> received.contains("first"));

		this.container.pauseTopic();
		assertThat(this.admin.pauses.get()).as("through the admin, once").isEqualTo(1);
		assertThat(pausedPartitions()).containsExactly(true, true, true, true);
		assertThat(this.container.isTopicPaused()).isTrue();
		for (int i = 0; i < 20; i++) {
			this.queue.schedule("wide", "m-" + i, "m-" + i, Duration.ZERO);
		}
		// every partition holds its due messages: none is leased while the topic is paused (the consumers are
		// woken by each schedule and polled every 200 ms, so they would have leased them within this time)
		await().during(Duration.ofMillis(600)).atMost(WAIT)
			.until(() -> this.admin.stats("wide").ready() == 20 && this.admin.stats("wide").inflight() == 0);
		assertThat(received).containsExactly("first");

		this.container.resumeTopic();
		assertThat(this.admin.resumes.get()).isEqualTo(1);
		assertThat(pausedPartitions()).containsExactly(false, false, false, false);
		assertThat(this.container.isTopicPaused()).isFalse();
		await().atMost(WAIT).until(() -> received.size() == 21);
	}

	@Test
	void aContainerWithoutAnAdminRefusesTopicWideChangesAndChangesNothing() {
		this.queue.schedule("wide", "x", "x", Duration.ofMinutes(5));
		DelayedListenerContainer bare = new DelayedListenerContainer("bare",
				ListenerRegistration.of("wide", String.class, (payload, message) -> {
				}), this.store, this.fixture.converter(), this.wakeUpTimer);
		assertThat(bare.getAdmin()).isNull();
		assertThatIllegalStateException().isThrownBy(bare::pauseTopic).withMessageContaining("DelayedQueueAdmin");
		assertThatIllegalStateException().isThrownBy(bare::isTopicPaused);
		assertThat(pausedPartitions()).containsExactly(false, false, false, false);
		bare.setAdmin(this.admin);
		bare.pauseTopic();
		assertThat(this.admin.controls("wide")).extracting(TopicControlState::paused).isEqualTo(true);
	}

	/** The application's admin, counting the topic-wide calls that reach it. */
	static final class CountingAdmin extends RedisDelayedQueueAdmin {

		final AtomicInteger pauses = new AtomicInteger();

		final AtomicInteger resumes = new AtomicInteger();

		CountingAdmin(RedisMessageStore store, RedisFixture fixture) {
			super(store, fixture.converter());
		}

		@Override
		public TopicControlState pause(String topic) {
			this.pauses.incrementAndGet();
			return super.pause(topic);
		}

		@Override
		public TopicControlState resume(String topic) {
			this.resumes.incrementAndGet();
			return super.resume(topic);
		}

	}

}
