package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.Topics;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicCounts;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Subscriptions: every subscription of a topic receives each of its messages once, with its own leases, attempts and
 * dead letters, so that one subscription's failures never touch another's deliveries; a message waits once, in its
 * topic, until it falls due, and its envelope stays until the last subscription is done with it.
 */
class SubscriptionTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisMessageStore store;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void twoSubscriptionsOnTwoInstancesEachOneFailingEveryMessageTheOtherUntouched() {
		String billing = Topics.subscriptionName("order-timeout", "billing");
		String notify = Topics.subscriptionName("order-timeout", "notify");
		Map<String, List<Instant>> billed = new ConcurrentHashMap<>();
		Map<String, Instant> dueAt = new ConcurrentHashMap<>();
		Map<String, List<Integer>> notified = new ConcurrentHashMap<>();
		ListenerOptions failing = ListenerOptions.builder()
			.maxAttempts(2)
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(50, 5)))
			.build();
		for (int instance = 0; instance < 2; instance++) {
			RedisFixture.Consumer consumer = this.fixture.consumer();
			consumer.listeners().register(ListenerRegistration.of(billing, String.class, (payload, message) -> {
				billed.computeIfAbsent(message.id(), (id) -> new CopyOnWriteArrayList<>())
					.add(this.fixture.redisTime());
				dueAt.put(message.id(), message.dueAt());
			}));
			consumer.listeners().register(ListenerRegistration.of(notify, String.class,
					(DelayedMessageHandler<String>) (payload, message) -> {
						notified.computeIfAbsent(message.id(), (id) -> new CopyOnWriteArrayList<>())
							.add(message.attempt());
						throw new IllegalStateException("mail server down");
					}, failing));
		}
		for (int i = 0; i < 100; i++) {
			this.queue.schedule("order-timeout", "order-" + i, "o" + i, Duration.ofMillis(200 + 5 * i));
		}

		await().atMost(WAIT).until(() -> this.store.deadLetters().list(notify, 0, 200).size() == 100
				&& billed.size() == 100 && empty(billing));
		assertThat(billed).allSatisfy((id, times) -> {
			assertThat(times).as("%s delivered once to billing", id).hasSize(1);
			assertThat(times.get(0)).as("%s never early", id).isAfterOrEqualTo(dueAt.get(id));
		});
		assertThat(notified).hasSize(100).allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1, 2));
		assertThat(this.store.deadLetters().list(notify, 0, 200)).allSatisfy((dead) -> {
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.error()).contains("mail server down");
		});
		assertThat(this.store.deadLetters().list(billing, 0, 10)).isEmpty();
		TopicCounts topic = this.store.messages().stats("order-timeout");
		assertThat(topic.waiting() + topic.ready() + topic.leased()).as("nothing left waiting in the topic").isZero();
	}

	@Test
	void aMessageStoredOnceUntilTheLastSubscriptionIsDoneWithIt() {
		String fast = Topics.subscriptionName("shared", "fast");
		String slow = Topics.subscriptionName("shared", "slow");
		this.store.subscriptions().declare("shared", "fast");
		this.store.subscriptions().declare("shared", "slow");
		this.queue.schedule("shared", "m1", "payload", Duration.ofMillis(100));
		List<String> waitingKeys = RedisFixture.keysOf(redis.get(), "shared");
		assertThat(waitingKeys).as("a waiting message is stored in its topic alone")
			.noneMatch((key) -> key.contains("}:s:"));

		List<String> received = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(fast, String.class,
				(payload, message) -> received.add("fast:" + payload)));
		await().atMost(WAIT).until(() -> received.contains("fast:payload") && empty(fast));
		assertThat(envelopeKept("shared", "m1")).as("kept for the subscription still holding it").isTrue();

		consumer.listeners().register(ListenerRegistration.of(slow, String.class,
				(payload, message) -> received.add("slow:" + payload)));
		await().atMost(WAIT).until(() -> received.contains("slow:payload") && empty(slow));
		await().atMost(WAIT).until(() -> !envelopeKept("shared", "m1"));
		assertThat(received).containsExactlyInAnyOrder("fast:payload", "slow:payload");
		assertThat(RedisFixture.keysOf(redis.get(), "shared")).as("nothing left behind")
			.allMatch((key) -> key.endsWith(":subs") || key.endsWith(":meta") || key.endsWith(":claims"));
	}

	@Test
	void aMessageCancelledBeforeItFallsDueReachesNoSubscription() {
		String a = Topics.subscriptionName("cancelled", "a");
		String b = Topics.subscriptionName("cancelled", "b");
		List<String> received = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(a, String.class,
				(payload, message) -> received.add("a:" + message.id())));
		consumer.listeners().register(ListenerRegistration.of(b, String.class,
				(payload, message) -> received.add("b:" + message.id())));
		this.queue.schedule("cancelled", "paid", "x", Duration.ofMillis(300));
		this.queue.schedule("cancelled", "unpaid", "x", Duration.ofMillis(300));
		assertThat(this.queue.cancel("cancelled", "paid")).isTrue();

		await().atMost(WAIT).until(() -> received.size() == 2);
		assertThat(received).containsExactlyInAnyOrder("a:unpaid", "b:unpaid");
	}

	@Test
	void aSubscriptionReceivesTheMessagesThatFallDueAfterItIsDeclared() {
		String early = Topics.subscriptionName("late-joiner", "early");
		String late = Topics.subscriptionName("late-joiner", "late");
		List<String> received = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(early, String.class,
				(payload, message) -> received.add("early:" + message.id())));
		this.queue.schedule("late-joiner", "before", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> received.contains("early:before"));

		this.queue.schedule("late-joiner", "waiting", "x", Duration.ofSeconds(1));
		consumer.listeners().register(ListenerRegistration.of(late, String.class,
				(payload, message) -> received.add("late:" + message.id())));

		await().atMost(WAIT).until(() -> received.size() == 3);
		assertThat(received).containsExactlyInAnyOrder("early:before", "early:waiting", "late:waiting");
	}

	@Test
	void groupedAndPrioritisedMessagesFanOutIntoEachSubscriptionsOwnSets() {
		String one = Topics.subscriptionName("fair", "one");
		String two = Topics.subscriptionName("fair", "two");
		this.store.subscriptions().declare("fair", "one");
		this.store.subscriptions().declare("fair", "two");
		for (int i = 0; i < 20; i++) {
			this.queue.schedule(ScheduleRequest.builder("fair", "t" + (i % 4) + "-" + i)
				.id("g" + i)
				.delay(Duration.ofMillis(100))
				.group("tenant-" + (i % 4))
				.build());
			this.queue.schedule(ScheduleRequest.builder("fair", "p" + i).id("p" + i).delay(Duration.ofMillis(100))
				.priority(i % 8)
				.build());
		}
		Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		for (String subscription : List.of(one, two)) {
			consumer.listeners().register(ListenerRegistration.of(subscription, String.class,
					(DelayedMessageHandler<String>) (payload, message) -> received
						.computeIfAbsent(subscription + ":" + message.id(), (key) -> new AtomicInteger())
						.incrementAndGet()));
		}

		await().atMost(WAIT).until(() -> received.size() == 80 && empty(one) && empty(two));
		assertThat(received).allSatisfy((key, count) -> assertThat(count).as(key).hasValue(1));
		assertThat(this.store.messages().stats("fair").waiting()).isZero();
	}

	@Test
	void aPausedSubscriptionHoldsItsCopiesBackWhileTheOthersFlowAndItsDeadLettersReplayAlone() {
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		String audit = Topics.subscriptionName("payments", "audit");
		String ledger = Topics.subscriptionName("payments", "ledger");
		List<String> audited = new CopyOnWriteArrayList<>();
		List<String> ledgered = new CopyOnWriteArrayList<>();
		AtomicInteger ledgerFailures = new AtomicInteger(3);
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(audit, String.class,
				(payload, message) -> audited.add(message.id())));
		consumer.listeners().register(ListenerRegistration.of(ledger, String.class,
				(DelayedMessageHandler<String>) (payload, message) -> {
					if (ledgerFailures.getAndDecrement() > 0) {
						throw new IllegalStateException("ledger locked");
					}
					ledgered.add(message.id());
				}, ListenerOptions.builder().maxAttempts(1).build()));
		admin.pause(audit);

		for (int i = 0; i < 3; i++) {
			this.queue.schedule("payments", "p" + i, "x", Duration.ofMillis(50));
		}
		await().atMost(WAIT).until(() -> admin.deadLetters(ledger, 0, 10).size() == 3);
		assertThat(audited).as("the paused subscription holds its copies back").isEmpty();
		assertThat(admin.stats(audit).pending()).as("waiting in the paused subscription").isEqualTo(3);
		assertThat(admin.deadLetters(audit, 0, 10)).isEmpty();

		assertThat(admin.replayDeadLetters(ledger)).isEqualTo(3);
		await().atMost(WAIT).until(() -> ledgered.size() == 3);
		assertThat(audited).as("still paused").isEmpty();
		admin.resume(audit);
		await().atMost(WAIT).until(() -> audited.size() == 3 && empty(audit) && empty(ledger));
		assertThat(audited).containsExactlyInAnyOrder("p0", "p1", "p2");
		assertThat(ledgered).containsExactlyInAnyOrder("p0", "p1", "p2");
		await().atMost(WAIT).until(() -> !envelopeKept("payments", "p0"));
	}

	@Test
	void aSubscriptionDeclaredBeforeItsListenerStartsKeepsItsCopiesAndARemovedOneLeavesNothingBehind() {
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		assertThat(admin.declareSubscription("declared", "later")).isTrue();
		assertThat(admin.declareSubscription("declared", "kept")).isTrue();
		assertThat(admin.declareSubscription("declared", "later")).as("declared already").isFalse();
		assertThat(admin.subscriptions("declared")).containsOnlyKeys("kept", "later");
		for (int i = 0; i < 5; i++) {
			this.queue.schedule("declared", "m" + i, "x", Duration.ZERO);
		}
		List<String> kept = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(Topics.subscriptionName("declared", "kept"),
				String.class, (payload, message) -> kept.add(message.id())));
		await().atMost(WAIT).until(() -> kept.size() == 5);
		String later = Topics.subscriptionName("declared", "later");
		assertThat(admin.stats(later).pending()).as("copies kept for a listener not started yet").isEqualTo(5);
		assertThat(envelopeKept("declared", "m0")).isTrue();

		assertThat(admin.removeSubscription("declared", "later")).isTrue();
		assertThat(admin.subscriptions("declared")).containsOnlyKeys("kept");
		assertThat(admin.knownTopics()).doesNotContain(later);
		await().atMost(WAIT).until(() -> !envelopeKept("declared", "m0"));
		assertThat(RedisFixture.keysOf(redis.get(), "declared")).as("nothing of it left")
			.noneMatch((key) -> key.contains(":s:later:"));
		assertThat(admin.removeSubscription("declared", "later")).as("removed already").isFalse();

		// a message scheduled afterwards reaches the one left alone
		this.queue.schedule("declared", "after", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> kept.contains("after"));
		assertThat(admin.stats(later).pending()).isZero();
	}

	@Test
	void aListenerOfATopicWithSubscriptionsInRedisFailsToStartSayingSo() {
		this.store.subscriptions().declare("subscribed", "billing");
		RedisFixture.Consumer consumer = this.fixture.consumer();
		assertThatIllegalStateException()
			.isThrownBy(() -> consumer.listeners().register(ListenerRegistration.of("subscribed", String.class,
					(payload, message) -> {
					})))
			.withMessageContaining("has the subscriptions [billing]");
	}

	@Test
	void aMessageThatFannedOutIsNotReplacedUnderTheSubscriptionsStillHoldingIt() {
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		admin.declareSubscription("debounced", "first");
		admin.declareSubscription("debounced", "second");
		this.queue.schedule("debounced", "m", "original", Duration.ZERO);
		List<String> received = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(Topics.subscriptionName("debounced", "first"),
				String.class, (payload, message) -> received.add("first:" + payload)));
		await().atMost(WAIT).until(() -> received.contains("first:original"));

		// the second still holds its copy: the envelope is theirs (it was overwritten, and the copy delivered changed)
		assertThat(this.queue.scheduleOrReplace(ScheduleRequest.builder("debounced", "changed").id("m").build()))
			.isEqualTo(ReplaceResult.IN_FLIGHT);
		consumer.listeners().register(ListenerRegistration.of(Topics.subscriptionName("debounced", "second"),
				String.class, (payload, message) -> received.add("second:" + payload)));
		await().atMost(WAIT).until(() -> received.size() == 2 && !envelopeKept("debounced", "m"));
		assertThat(received).containsExactly("first:original", "second:original");
	}

	@Test
	void aMessagePastItsDeadlineWhenItFirstFansOutIsNotDelivered() {
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		admin.declareSubscription("deadlines", "only");
		Instant due = this.fixture.redisTime().plusMillis(50);
		this.queue.schedule(ScheduleRequest.builder("deadlines", "stale").id("late").dueAt(due)
			.expiresAt(due.plusMillis(50)).build());
		this.queue.schedule(ScheduleRequest.builder("deadlines", "fresh").id("on-time").dueAt(due).build());
		// no claim runs until the deadline has passed: the first fan-out is the claim that leases
		await().atMost(WAIT).until(() -> this.fixture.redisTime().isAfter(due.plusMillis(100)));
		List<String> received = new CopyOnWriteArrayList<>();
		String only = Topics.subscriptionName("deadlines", "only");
		this.fixture.consumer().listeners().register(ListenerRegistration.of(only, String.class,
				(payload, message) -> received.add(message.id())));

		await().atMost(WAIT).until(() -> received.contains("on-time") && admin.deadLetters(only, 0, 10).size() == 1);
		assertThat(received).containsExactly("on-time");
		assertThat(admin.deadLetters(only, 0, 10)).extracting(DeadLetter::id).containsExactly("late");
	}

	@Test
	void leasesOfTheTopicsOwnListenerThatRunOutAfterTheFirstSubscriptionFanOut() {
		this.queue.schedule("switched", "m", "x", Duration.ZERO);
		// a listener of the topic itself leases it and dies before its subscriptions are declared
		assertThat(this.store.leases().claim("switched", 10, 300, 5).messages()).hasSize(1);
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		admin.declareSubscription("switched", "new");
		List<String> received = new CopyOnWriteArrayList<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of(
				Topics.subscriptionName("switched", "new"), String.class,
				(payload, message) -> received.add(message.id())));

		await().atMost(WAIT).until(() -> received.contains("m"));
		await().atMost(WAIT).until(() -> !envelopeKept("switched", "m"));
	}

	@Test
	void aTopicsPartitionCountStaysWhileASubscriptionHoldsCopies() {
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		admin.declareSubscription("spread", "idle");
		admin.declareSubscription("spread", "busy");
		this.queue.schedule("spread", "m", "x", Duration.ZERO);
		List<String> received = new CopyOnWriteArrayList<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().register(ListenerRegistration.of(Topics.subscriptionName("spread", "busy"), String.class,
				(payload, message) -> received.add(message.id())));
		await().atMost(WAIT).until(() -> received.contains("m") && empty(Topics.subscriptionName("spread", "busy")));
		consumer.close();

		assertThatIllegalStateException().isThrownBy(() -> admin.changePartitions("spread", 2))
			.withMessageContaining("holds 1 message");
	}

	@Test
	void onAPartitionedTopicASubscriptionIsDeclaredOnEveryPartitionAndItsListenersConsumeThemAll() {
		TopicPartitioning partitioning = new TopicPartitioning(Map.of("parted", 3));
		RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);
		admin.setPartitioning(partitioning);
		this.queue.setPartitioning(partitioning);
		// declared ahead of any listener, on a fresh topic: every partition, not only the first
		assertThat(admin.declareSubscription("parted", "audit")).isTrue();
		for (int partition = 0; partition < 3; partition++) {
			assertThat(this.store.subscriptions().of(TopicKeys.partitionName("parted", partition)))
				.as("partition %d", partition)
				.containsOnlyKeys("audit");
		}
		for (int i = 0; i < 30; i++) {
			this.queue.schedule("parted", "p" + i, "x", Duration.ZERO);
		}
		Map<String, List<String>> received = new ConcurrentHashMap<>();
		for (String subscription : List.of("audit", "billing")) {
			RedisFixture.Consumer consumer = this.fixture.consumer(this.fixture.connectionFactory(),
					(factory) -> factory.setPartitioning(partitioning));
			consumer.listeners().register(ListenerRegistration.of(Topics.subscriptionName("parted", subscription),
					String.class, (payload, message) -> received
						.computeIfAbsent(subscription, (key) -> new CopyOnWriteArrayList<>())
						.add(message.id())));
		}

		await().atMost(WAIT).until(() -> received.getOrDefault("audit", List.of()).size() == 30);
		assertThat(received.get("audit")).doesNotHaveDuplicates();
		assertThat(admin.partitions("parted@audit")).isEqualTo(3);
	}

	/** Whether the topic's buckets still hold the message's envelope. */
	private static boolean envelopeKept(String topic, String id) {
		String keys = redis.get().call("KEYS", RedisFixture.PREFIX + ":{" + topic + "}:body:*");
		return keys != null && java.util.Arrays.stream(keys.split("\n"))
			.filter((key) -> !key.isEmpty())
			.anyMatch((key) -> "1".equals(redis.get().call("HEXISTS", key, id)));
	}

	private boolean empty(String name) {
		TopicCounts counts = this.store.messages().stats(name);
		return counts.waiting() + counts.ready() + counts.leased() == 0;
	}

}
