package io.github.delayqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.build.redis.TestRedisCluster;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The core behaviour on a Redis Cluster of three masters started by the test: every script touches one topic's
 * hash slot only, the wake channel reaches the listener whichever node published, and topics spread over the
 * masters.
 */
class ClusterTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static TestRedisCluster cluster;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private WakeUpTimer scheduler;

	private DefaultDelayedListenerContainerFactory factory;

	private DelayedListenerEndpointRegistry registry;

	@BeforeAll
	static void startCluster() {
		cluster = TestRedisCluster.builder().masters(3).start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		cluster.flush();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(cluster.nodeAddresses()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		this.closeables.add(connectionFactory::destroy);
		this.store = new RedisMessageStore(connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		this.queue = new RedisDelayedQueue(this.store, PayloadConverter.json());
		this.admin = new RedisDelayedQueueAdmin(this.store, PayloadConverter.json());
		this.scheduler = new WakeUpTimer(connectionFactory, Duration.ofMillis(5), Duration.ofMillis(500));
		this.scheduler.start();
		this.closeables.add(0, this.scheduler::stop);
		this.factory = new DefaultDelayedListenerContainerFactory(this.store, PayloadConverter.json(),
				this.scheduler);
		this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(2));
		this.registry = new DelayedListenerEndpointRegistry();
		this.registry.start();
		this.closeables.add(0, this.registry::stop);
	}

	@AfterEach
	void tearDown() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		this.closeables.clear();
	}

	@Test
	void theScriptLibraryIsLoadedOnEveryMasterAndAgainOnOneThatLostIt() {
		for (int port : cluster.masterPorts()) {
			cluster.call(port, "FUNCTION", "FLUSH");
		}
		List<String> topics = spreadTopics();
		assertThat(this.queue.schedule(topics.get(0), "a", "x", Duration.ofMinutes(5))).isTrue();
		for (int port : cluster.masterPorts()) {
			assertThat(cluster.call(port, "FUNCTION", "LIST")).as("libraries on %d", port).contains("delayqueue_");
		}
		// a master that lost it (FUNCTION FLUSH, or a failover to a node that never had it) gets it again
		int lost = cluster.masterPortOf("dq:{" + topics.get(1) + "}:pending");
		cluster.call(lost, "FUNCTION", "FLUSH");
		assertThat(this.queue.schedule(topics.get(1), "b", "y", Duration.ofMinutes(5))).isTrue();
		assertThat(cluster.call(lost, "FUNCTION", "LIST")).contains("delayqueue_");
		assertThat(this.store.isRedisFunctions()).isTrue();
		for (String topic : topics.subList(0, 2)) {
			assertThat(this.admin.stats(topic).waiting()).isEqualTo(1);
		}
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 3 })
	void scheduleCancelRescheduleAndIdempotentIdsWorkOnEveryMaster(int partitions) {
		List<String> topics = spreadTopics();
		java.util.Map<String, Integer> counts = new java.util.HashMap<>();
		topics.forEach((topic) -> counts.put(topic, partitions));
		this.queue.setPartitioning(new TopicPartitioning(counts));
		this.admin.setPartitioning(new TopicPartitioning(counts));
		for (String topic : topics) {
			assertThat(this.queue.schedule(topic, "a", "x", Duration.ofMinutes(5))).isTrue();
			assertThat(this.queue.schedule(topic, "a", "again", Duration.ofMinutes(5))).as("idempotent").isFalse();
			assertThat(this.queue.schedule(topic, "b", "y", Duration.ofMinutes(5))).isTrue();
			assertThat(this.queue.cancel(topic, "b")).isTrue();
			assertThat(this.queue.reschedule(topic, "a", Duration.ofMinutes(10))).isTrue();
			assertThat(this.admin.stats(topic).waiting()).isEqualTo(1);
		}
		List<ScheduleResult> results = this.queue.scheduleAll(topics.stream()
			.map((topic) -> ScheduleRequest.builder(topic, "bulk").id("c").delay(Duration.ofMinutes(5)).build())
			.toList());
		assertThat(results).allMatch(ScheduleResult::scheduled);
		assertThat(this.store.topics().all()).containsAll(topics);
	}

	@Test
	void listenersOnEveryMasterReceiveTheirMessages() {
		List<String> topics = spreadTopics();
		List<Recorder<String>> recorders = new ArrayList<>();
		for (String topic : topics) {
			Recorder<String> recorder = new Recorder<>();
			recorders.add(recorder);
			this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of(topic, String.class, recorder),
					this.factory, true);
		}
		for (String topic : topics) {
			for (int i = 0; i < 20; i++) {
				this.queue.schedule(topic, "m-" + i, "p", Duration.ofMillis(200 + i * 10));
			}
		}
		for (Recorder<String> recorder : recorders) {
			await().atMost(WAIT).until(() -> recorder.received.size() == 20);
			assertThat(recorder.countsById.values()).allMatch((count) -> count.get() == 1);
			assertThat(recorder.received).allMatch((received) -> !received.message().dueAt()
				.isAfter(java.time.Instant.ofEpochMilli(received.wallMillis()).plusMillis(5)));
		}
		for (String topic : topics) {
			await().atMost(WAIT).until(() -> this.admin.stats(topic).inflight() == 0);
		}
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 3 })
	void aFailingMessageIsRetriedDeadLetteredAndReplayed(int partitions) {
		String topic = spreadTopics().get(1);
		TopicPartitioning partitioning = new TopicPartitioning(java.util.Map.of(topic, partitions));
		this.queue.setPartitioning(partitioning);
		this.admin.setPartitioning(partitioning);
		this.factory.setPartitioning(partitioning);
		AtomicInteger calls = new AtomicInteger();
		AtomicInteger succeedAfter = new AtomicInteger(Integer.MAX_VALUE);
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.from(ListenerRegistration.of(topic,
				String.class, (payload, message) -> {
					if (calls.incrementAndGet() < succeedAfter.get()) {
						throw new IllegalStateException("fails");
					}
				}, ListenerOptions.builder().maxAttempts(3).errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(20, 10))).build())), this.factory,
				true);
		this.queue.schedule(topic, "doomed", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats(topic).dead() == 1);
		assertThat(calls.get()).isEqualTo(3);
		assertThat(this.admin.deadLetters(topic, 0, 10)).extracting(DeadLetter::id).containsExactly("doomed");

		succeedAfter.set(0);
		assertThat(this.admin.replayDeadLetter(topic, "doomed")).isTrue();
		await().atMost(WAIT).until(() -> this.admin.stats(topic).dead() == 0 && this.admin.stats(topic).waiting() == 0
				&& this.admin.stats(topic).ready() == 0 && this.admin.stats(topic).inflight() == 0);
		assertThat(calls.get()).isEqualTo(4);
	}

	@Test
	void aPartitionedTopicSpreadsOverEveryMasterAndIsConsumedWhole() {
		TopicPartitioning partitioning = new TopicPartitioning(java.util.Map.of("wide", 12));
		this.queue.setPartitioning(partitioning);
		this.admin.setPartitioning(partitioning);
		this.factory.setPartitioning(partitioning);
		Recorder<String> recorder = new Recorder<>();
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("wide", String.class, recorder),
				this.factory, true);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			requests.add(ScheduleRequest.builder("wide", "p").id("w-" + i).delay(Duration.ofMillis(300)).build());
		}
		this.queue.scheduleAll(requests);

		Set<Integer> mastersUsed = new HashSet<>();
		for (int partition = 0; partition < 12; partition++) {
			mastersUsed.add(cluster.masterPortOf("dq:{" + TopicKeys.partitionName("wide", partition) + "}:x"));
		}
		assertThat(mastersUsed).containsExactlyInAnyOrderElementsOf(cluster.masterPorts());
		await().atMost(WAIT).until(() -> recorder.received.size() == 600);
		assertThat(recorder.countsById).hasSize(600).allSatisfy((id, count) -> assertThat(count.get()).isEqualTo(1));
		await().atMost(WAIT).until(() -> this.admin.stats("wide").inflight() == 0);
		assertThat(this.admin.stats("wide").waiting()).isZero();
	}

	@Test
	void aSlotMovedToAnotherMasterUnderLoadLosesNothing() throws Exception {
		String topic = spreadTopics().get(0);
		Recorder<String> recorder = new Recorder<>();
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of(topic, String.class, recorder),
				this.factory, true);
		int count = 1500;
		AtomicInteger failedCalls = new AtomicInteger();
		Thread producer = new Thread(() -> {
			for (int i = 0; i < count; i++) {
				String id = "m-" + i;
				long deadline = System.nanoTime() + WAIT.toNanos();
				// about a thousand a second, so that the slot moves while messages keep coming
				java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
				while (true) {
					try {
						// idempotent: a call whose outcome is unknown is simply made again
						this.queue.schedule(topic, id, "p", Duration.ofMillis(i % 500));
						break;
					}
					catch (RuntimeException ex) {
						failedCalls.incrementAndGet();
						if (System.nanoTime() > deadline) {
							throw ex;
						}
					}
				}
			}
		}, "producer");
		producer.start();
		await().atMost(WAIT).until(() -> recorder.received.size() > 100);
		int source = cluster.masterPortOf("dq:{" + topic + "}:pending");
		int target = cluster.masterPorts().stream().filter((port) -> port != source).findFirst().orElseThrow();
		assertThat(producer.isAlive()).as("still producing as the slot moves").isTrue();
		int moved = cluster.migrateSlotOf("dq:{" + topic + "}:pending", target);
		producer.join(WAIT.toMillis());

		assertThat(moved).as("keys moved").isPositive();
		assertThat(cluster.masterPortOf("dq:{" + topic + "}:pending")).isEqualTo(target);
		await().atMost(WAIT).until(() -> recorder.countsById.size() == count);
		await().atMost(WAIT).until(() -> this.admin.stats(topic).inflight() == 0
				&& this.admin.stats(topic).waiting() == 0 && this.admin.stats(topic).ready() == 0);
		assertThat(this.admin.stats(topic).dead()).isZero();
	}

	/** Three topics whose keys live on three different masters. */
	private static List<String> spreadTopics() {
		List<String> topics = new ArrayList<>();
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; topics.size() < 3 && i < 1000; i++) {
			String topic = "topic-" + i;
			if (masters.add(cluster.masterPortOf("dq:{" + topic + "}:pending"))) {
				topics.add(topic);
			}
		}
		assertThat(topics).hasSize(3);
		return topics;
	}

}
