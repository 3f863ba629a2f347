package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicOperations;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.TopicKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link DelayedQueue} is the producer's side and no longer a {@link TopicOperations}: it keeps {@code lookup}, and
 * 0.2's operators' methods remain, deprecated, reaching the same data as the {@link RedisDelayedQueueAdmin} (on a
 * topic of several partitions), through an admin the queue builds only when one of them is called.
 */
@SuppressWarnings("removal")
class DelayedQueueBridgeTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final TopicPartitioning THREE = new TopicPartitioning(Map.of("split", 3));

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.queue.setPartitioning(THREE);
		this.admin = this.fixture.admin(this.store);
		this.admin.setPartitioning(THREE);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aDelayedQueueIsNotTopicOperations() {
		assertThat(TopicOperations.class.isAssignableFrom(DelayedQueue.class)).isFalse();
		assertThat(TopicOperations.class.isAssignableFrom(io.github.delayqueue.DelayedQueueAdmin.class)).isTrue();
	}

	@Test
	void producingAndLookingUpBuildNoAdmin() {
		this.queue.schedule("split", "o-1", "x", Duration.ofMinutes(5));
		this.queue.reschedule("split", "o-1", Duration.ofMinutes(10));
		MessageInfo found = this.queue.lookup("split", "o-1").orElseThrow();
		assertThat(found.state()).isEqualTo(MessageState.WAITING);
		assertThat(found).usingRecursiveComparison().isEqualTo(this.admin.lookup("split", "o-1").orElseThrow());
		assertThat(this.queue.hasBridgeAdmin()).isFalse();
		this.queue.stats("split");
		assertThat(this.queue.hasBridgeAdmin()).as("built by the first deprecated call").isTrue();
	}

	@Test
	void theDeprecatedMethodsReachTheSameDataAsTheAdmin() {
		for (int i = 0; i < 12; i++) {
			this.queue.schedule("split", "d-" + i, "payload-" + i, Duration.ZERO);
		}
		for (int i = 0; i < 6; i++) {
			this.queue.schedule("split", "w-" + i, "later", Duration.ofMinutes(5));
		}
		int buried = 0;
		for (int partition = 0; partition < 3; partition++) {
			String name = TopicKeys.partitionName("split", partition);
			Claim claim = this.store.leases().claim(name, 100, 30_000, 5);
			for (ClaimedMessage message : claim.messages()) {
				assertThat(this.store.leases().bury(name, message.lease(), "boom")).isTrue();
				buried++;
			}
		}
		assertThat(buried).isEqualTo(12);

		assertThat(this.queue.stats("split")).usingRecursiveComparison().isEqualTo(this.admin.stats("split"));
		assertThat(this.queue.stats("split").dead()).isEqualTo(12);
		assertThat(this.queue.stats("split").waiting()).isEqualTo(6);
		List<DeadLetter> dead = this.queue.deadLetters("split", 0, 100);
		assertThat(dead).hasSize(12).usingRecursiveFieldByFieldElementComparator()
			.containsExactlyElementsOf(this.admin.deadLetters("split", 0, 100));
		assertThat(this.queue.listWaiting("split", WaitingQuery.first(100)).messages()).extracting(MessageInfo::id)
			.containsExactlyElementsOf(this.admin.listWaiting("split", WaitingQuery.first(100))
				.messages()
				.stream()
				.map(MessageInfo::id)
				.toList())
			.hasSize(6);

		assertThat(this.queue.replayDeadLetter("split", "d-0")).isTrue();
		assertThat(this.admin.lookup("split", "d-0").orElseThrow().state()).isEqualTo(MessageState.WAITING);
		assertThat(this.queue.purgeDeadLetter("split", "d-1")).isTrue();
		assertThat(this.admin.lookup("split", "d-1")).isEmpty();
		assertThat(this.queue.purgeDeadLetters("split")).isEqualTo(10);
		assertThat(this.admin.stats("split").dead()).isZero();
		assertThat(this.queue.replayDeadLetters("split")).isZero();
		assertThat(this.admin.stats("split").waiting() + this.admin.stats("split").ready()).isEqualTo(6 + 1);
	}

	@Test
	void anImplementationWithoutTheOperatorsSideSendsCallersToTheAdmin() {
		DelayedQueue own = new ProducerOnly();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> own.stats("t"))
			.withMessageContaining("DelayedQueueAdmin");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> own.deadLetters("t", 0, 10))
			.withMessageContaining("DelayedQueueAdmin");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> own.purgeDeadLetters("t"))
			.withMessageContaining("DelayedQueueAdmin");
	}

	/** An application's own queue written for 0.3: only the producer's side. */
	private static final class ProducerOnly implements DelayedQueue {

		@Override
		public String schedule(String topic, Object payload, Duration delay) {
			return "id";
		}

		@Override
		public String scheduleAt(String topic, Object payload, java.time.Instant dueAt) {
			return "id";
		}

		@Override
		public boolean schedule(String topic, String id, Object payload, Duration delay) {
			return true;
		}

		@Override
		public ScheduleResult schedule(ScheduleRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
			return List.of();
		}

		@Override
		public boolean cancel(String topic, String id) {
			return false;
		}

		@Override
		public boolean reschedule(String topic, String id, Duration delay) {
			return false;
		}

	}

}
