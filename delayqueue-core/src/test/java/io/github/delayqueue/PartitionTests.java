package io.github.delayqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A topic of several partitions: each partition has keys of its own, a message's id decides its partition, the API
 * sees the topic whole, a listener consumes every partition fairly, and a partition count that disagrees with the one
 * Redis keeps is refused while the topic holds messages.
 */
class PartitionTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final TopicPartitioning THREE = new TopicPartitioning(Map.of("split", 3));

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private final List<DelayedListenerContainer> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
		this.queue.setPartitioning(THREE);
		this.admin.setPartitioning(THREE);
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(DelayedListenerContainer::stop);
		this.fixture.close();
	}

	@Test
	void eachPartitionHasKeysOfItsOwnAndTheApiSeesTheTopicWhole() {
		for (int i = 0; i < 60; i++) {
			this.queue.schedule("split", "m-" + i, "p", Duration.ofMinutes(5));
		}
		for (int p = 0; p < 3; p++) {
			int partition = p;
			String tag = (partition == 0) ? "{split}" : "{split#" + partition + "}";
			long expected = java.util.stream.IntStream.range(0, 60)
				.filter((i) -> THREE.partitionOf("split", "m-" + i) == partition)
				.count();
			assertThat(expected).as("the ids spread over the partitions").isPositive();
			assertThat(String.valueOf(RedisFixture.waiting(redis.get(), RedisFixture.PREFIX + ":" + tag + ":pending").size()))
				.isEqualTo(Long.toString(expected));
		}
		assertThat(this.admin.stats("split").waiting()).isEqualTo(60);
		assertThat(this.queue.schedule("split", "m-7", "again", Duration.ofMinutes(5))).as("idempotent").isFalse();
		assertThat(this.queue.cancel("split", "m-7")).isTrue();
		assertThat(this.queue.reschedule("split", "m-8", Duration.ofSeconds(1))).isTrue();
		assertThat(this.admin.stats("split").waiting()).isEqualTo(59);
		assertThat(this.admin.stats("split").nextDueAt()).isBefore(java.time.Instant.now().plusSeconds(2));
		assertThat(this.admin.knownTopics()).contains("split").noneMatch((topic) -> topic.contains("#"));
	}

	@Test
	void aListenerReceivesEveryPartitionsMessagesOnceAndDeadLettersAreListedTogether() {
		Recorder<String> recorder = new Recorder<>();
		start(ListenerRegistration.of("split", String.class, (payload, message) -> {
			if (message.id().startsWith("bad-")) {
				throw new IllegalStateException("bad");
			}
			recorder.handle(payload, message);
		}, ListenerOptions.builder().concurrency(4).maxAttempts(1).build()));
		for (int i = 0; i < 90; i++) {
			this.queue.schedule("split", "m-" + i, "p", Duration.ofMillis(i % 30));
		}
		for (int i = 0; i < 6; i++) {
			this.queue.schedule("split", "bad-" + i, "p", Duration.ZERO);
		}
		await().atMost(WAIT).until(() -> recorder.received.size() == 90);
		await().atMost(WAIT).until(() -> this.admin.stats("split").dead() == 6);
		assertThat(recorder.countsById.values()).allMatch((count) -> count.get() == 1);

		List<DeadLetter> dead = this.admin.deadLetters("split", 0, 10);
		assertThat(dead).extracting(DeadLetter::id)
			.containsExactlyInAnyOrder("bad-0", "bad-1", "bad-2", "bad-3", "bad-4", "bad-5");
		assertThat(dead).isSortedAccordingTo(java.util.Comparator.comparing(DeadLetter::diedAt));
		assertThat(this.admin.deadLetters("split", 4, 10)).extracting(DeadLetter::id)
			.containsExactly(dead.get(4).id(), dead.get(5).id());
		assertThat(this.admin.purgeDeadLetter("split", "bad-0")).isTrue();
		assertThat(this.admin.purgeDeadLetters("split")).isEqualTo(5);
	}

	@Test
	void aBusyPartitionDoesNotStarveTheOthers() {
		List<String> order = new CopyOnWriteArrayList<>();
		// one handler thread: every message waits for the one before it
		start(ListenerRegistration.of("split", String.class, (payload, message) -> {
			order.add(message.id());
			long until = System.nanoTime() + Duration.ofMillis(2).toNanos();
			while (System.nanoTime() < until) {
				Thread.onSpinWait();
			}
		}, ListenerOptions.builder().concurrency(1).build()));
		List<String> busy = idsOf(0, 300, "busy-");
		List<String> quiet = idsOf(1, 5, "quiet-");
		List<ScheduleRequest> requests = new ArrayList<>();
		busy.forEach((id) -> requests.add(ScheduleRequest.builder("split", "x").id(id).delay(Duration.ZERO).build()));
		this.queue.scheduleAll(requests);
		await().atMost(WAIT).until(() -> order.size() >= 10);
		quiet.forEach((id) -> this.queue.schedule("split", id, "x", Duration.ZERO));

		await().atMost(WAIT).until(() -> order.containsAll(quiet));
		int lastQuiet = quiet.stream().mapToInt(order::indexOf).max().orElseThrow();
		assertThat(lastQuiet).as("the quiet partition's messages are not left until the busy one is drained")
			.isLessThan(200);
		await().atMost(WAIT).until(() -> order.size() == 305);
	}

	@Test
	void aCountThatDisagreesWithRedisIsRefusedUntilTheTopicIsEmptiedAndItsCountChanged() {
		RedisDelayedQueue single = this.fixture.queue(this.store);
		RedisDelayedQueueAdmin singleAdmin = this.fixture.admin(this.store);
		single.schedule("split", "old", "x", Duration.ofMinutes(5));
		assertThat(singleAdmin.partitions("split")).isEqualTo(1);

		assertThatIllegalStateException().isThrownBy(() -> this.queue.schedule("split", "new", "x", Duration.ZERO))
			.withMessageContaining("Topic 'split' has 1 partition(s) in Redis, but this application uses 3")
			.withMessageContaining("changePartitions('split', n)");
		DefaultDelayedListenerContainerFactory factory = this.fixture.consumer().listeners().factory();
		factory.setPartitioning(THREE);
		DelayedListenerContainer container = factory.createListenerContainer(
				SimpleDelayedListenerEndpoint.of("split", String.class, new Recorder<>()));
		assertThatIllegalStateException().isThrownBy(container::start)
			.withMessageContaining("has 1 partition(s) in Redis");
		assertThat(container.isRunning()).isFalse();
		assertThatIllegalStateException().isThrownBy(() -> singleAdmin.changePartitions("split", 3))
			.withMessageContaining("holds 1 message(s)");
		assertThat(singleAdmin.stats("split").waiting()).as("nothing changed").isEqualTo(1);
		// reads follow Redis, whatever the reader uses
		assertThat(this.admin.stats("split").waiting()).isEqualTo(1);

		assertThat(single.cancel("split", "old")).isTrue();
		singleAdmin.changePartitions("split", 3);
		RedisDelayedQueue partitioned = this.fixture.queue(this.store);
		partitioned.setPartitioning(THREE);
		assertThat(partitioned.schedule("split", "new", "x", Duration.ofMinutes(5))).isTrue();
		assertThat(this.store.partitions().of("split")).isEqualTo(3);
		// and now the one-partition application is the one refused; reading still sees the whole topic
		RedisDelayedQueue late = this.fixture.queue(this.store);
		assertThatIllegalStateException().isThrownBy(() -> late.schedule("split", "x", "x", Duration.ZERO))
			.withMessageContaining("has 3 partition(s) in Redis, but this application uses 1");
		assertThat(this.fixture.admin(this.store).stats("split").waiting()).isEqualTo(1);
	}

	@Test
	void aTopicHoldingMessagesFromBeforePartitionsCannotStartWithMore() {
		RedisDelayedQueue single = this.fixture.queue(this.store);
		single.schedule("legacy", "old", "x", Duration.ofMinutes(5));
		// as 0.1 left it: messages, and no partition count kept
		redis.get().call("HDEL", RedisFixture.PREFIX + ":{legacy}:meta", "partitions");
		RedisDelayedQueue partitioned = this.fixture.queue(this.store);
		partitioned.setPartitioning(new TopicPartitioning(Map.of("legacy", 4)));

		assertThatIllegalStateException().isThrownBy(() -> partitioned.schedule("legacy", "new", "x", Duration.ZERO))
			.withMessageContaining("Topic 'legacy' holds messages of one partition, but this application uses 4");
		assertThat(this.fixture.admin(this.store).stats("legacy").waiting()).isEqualTo(1);
	}

	private void start(ListenerRegistration<String> registration) {
		DefaultDelayedListenerContainerFactory factory = this.fixture.consumer().listeners().factory();
		factory.setPartitioning(THREE);
		factory.setDefaultOptions(ListenerOptions.builder().errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 100))).build());
		DelayedListenerContainer container = factory
			.createListenerContainer(SimpleDelayedListenerEndpoint.from(registration));
		container.start();
		this.containers.add(container);
	}

	/** Ids that fall into the given partition of "split". */
	private static List<String> idsOf(int partition, int count, String prefix) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; ids.size() < count; i++) {
			if (THREE.partitionOf("split", prefix + i) == partition) {
				ids.add(prefix + i);
			}
		}
		return ids;
	}

}
