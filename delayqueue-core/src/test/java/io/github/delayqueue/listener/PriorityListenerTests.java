package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Priorities as listeners live them, on a topic of three partitions consumed by two application instances: the
 * listener sees each message's priority, a high priority overtakes a backlog of normal ones, a retry keeps its
 * priority, and the priority mode is set on every partition.
 */
class PriorityListenerTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final TopicPartitioning THREE = new TopicPartitioning(Map.of("ranked", 3));

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
		this.queue.setPartitioning(THREE);
		this.admin.setPartitioning(THREE);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	private void twoInstances(DelayedMessageHandler<Integer> handler) {
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(1)
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5)))
			.build();
		for (int i = 0; i < 2; i++) {
			this.fixture.consumer(this.fixture.connectionFactory(), (factory) -> factory.setPartitioning(THREE))
				.listeners()
				.register(ListenerRegistration.of("ranked", Integer.class, handler, options));
		}
	}

	@Test
	void highPrioritiesOvertakeABacklogOnEveryPartitionAndARetryKeepsItsPriority() {
		List<DeliveredMessage> order = new CopyOnWriteArrayList<>();
		DelayedMessageHandler<Integer> handler = (payload, message) -> {
			order.add(message);
			if (message.id().equals("urgent-0") && message.attempt() == 1) {
				throw new IllegalStateException("once");
			}
		};
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			requests.add(ScheduleRequest.builder("ranked", i).id("normal-" + i).build());
		}
		for (int i = 0; i < 9; i++) {
			requests.add(ScheduleRequest.builder("ranked", i).id("urgent-" + i).priority(9).build());
		}
		this.queue.scheduleAll(requests);

		twoInstances(handler);

		await().atMost(Duration.ofSeconds(60)).until(() -> order.size() == 610);
		List<String> ids = order.stream().map(DeliveredMessage::id).toList();
		assertThat(order).filteredOn((m) -> m.id().startsWith("urgent-"))
			.allSatisfy((m) -> assertThat(m.priority()).isEqualTo(9));
		assertThat(order).filteredOn((m) -> m.id().startsWith("normal-"))
			.allSatisfy((m) -> assertThat(m.priority()).isEqualTo(MessagePriorities.DEFAULT));
		// every urgent one ran before the backlog was a fifth done (each claim gives level 9 two thirds of its room)
		for (int i = 0; i < 9; i++) {
			assertThat(ids.indexOf("urgent-" + i)).as("urgent-" + i).isLessThan(120);
		}
		DeliveredMessage retried = order.stream()
			.filter((m) -> m.id().equals("urgent-0") && m.attempt() == 2)
			.findFirst()
			.orElseThrow();
		assertThat(retried.priority()).isEqualTo(9);
	}

	@Test
	void thePriorityModeIsSetOnEveryPartition() {
		this.admin.registerTopics(List.of("ranked"));
		assertThat(this.admin.priorityMode("ranked")).isEqualTo(MessagePriorities.PriorityMode.WEIGHTED);

		assertThat(this.admin.setPriorityMode("ranked", MessagePriorities.PriorityMode.STRICT))
			.isEqualTo(MessagePriorities.PriorityMode.STRICT);

		for (String partition : List.of("{ranked}", "{ranked#1}", "{ranked#2}")) {
			assertThat(redis.get().call("HGET", RedisFixture.PREFIX + ":" + partition + ":control", "pmode"))
				.isEqualTo("strict");
		}
		assertThat(this.admin.setPriorityMode("ranked", MessagePriorities.PriorityMode.WEIGHTED))
			.isEqualTo(MessagePriorities.PriorityMode.WEIGHTED);
		assertThat(redis.get().call("EXISTS", RedisFixture.PREFIX + ":{ranked#2}:control")).isEqualTo("0");
	}

}
