package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.Listeners;
import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class DeliveryTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private Listeners container;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
		this.container = this.fixture.consumer().listeners();
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void messagesAreDeliveredInDueOrder() {
		Recorder<Integer> recorder = new Recorder<>();
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 9; i >= 0; i--) {
			requests.add(ScheduleRequest.builder("ordered", i).id("m-" + i).delay(Duration.ofMillis(300 + 40L * i)).build());
		}
		this.queue.scheduleAll(requests);
		this.container.register(new ListenerRegistration<>("ordered", Integer.class, recorder,
				ListenerOptions.builder().concurrency(1).build()));
		await().atMost(WAIT).until(() -> recorder.received.size() == 10);
		assertThat(recorder.received).extracting(Recorder.Received::payload)
			.containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
		assertThat(this.admin.stats("ordered").pending()).isZero();
	}

	@Test
	void aDelayedMessageIsNeverEarlyAndArrivesPromptly() {
		Recorder<String> recorder = new Recorder<>();
		this.container.register(ListenerRegistration.of("prompt", String.class, recorder));
		long scheduledAt = System.nanoTime();
		String id = this.queue.schedule("prompt", "hello", Duration.ofMillis(200));
		await().atMost(WAIT).until(() -> recorder.received.size() == 1);
		Recorder.Received<String> received = recorder.received.get(0);
		long elapsedMillis = (received.nanos() - scheduledAt) / 1_000_000;
		assertThat(elapsedMillis).as("never before the delay").isGreaterThanOrEqualTo(200);
		assertThat(elapsedMillis).as("promptly after (generous bound)").isLessThan(5_000);
		assertThat(received.wallMillis()).isGreaterThanOrEqualTo(received.message().dueAt().toEpochMilli());
		assertThat(received.payload()).isEqualTo("hello");
		assertThat(received.message().id()).isEqualTo(id);
		assertThat(received.message().attempt()).isEqualTo(1);
		assertThat(received.message().topic()).isEqualTo("prompt");
	}

	@Test
	void messagesDueAMillisecondApartStartNoEarlierThanTheirDueTimes() {
		// due so close together that claims lease them ahead and the handler threads wait for each due time
		Map<String, Instant> started = new ConcurrentHashMap<>();
		Map<String, Instant> due = new ConcurrentHashMap<>();
		this.container.register(ListenerRegistration.of("close", String.class, (payload, message) -> {
			started.put(message.id(), Instant.now());
			due.put(message.id(), message.dueAt());
		}, ListenerOptions.builder().concurrency(4).build()));
		scheduleAMillisecondApart("close", "c-", 200);

		await().atMost(WAIT).until(() -> started.size() == 200);
		assertThat(started).allSatisfy((id, start) -> assertThat(start).as(id + " never starts early")
			.isAfterOrEqualTo(due.get(id)));
	}

	@Test
	void metadataCarriesHeadersAndTimes() {
		Recorder<String> recorder = new Recorder<>();
		this.container.register(ListenerRegistration.of("meta", String.class, recorder));
		Instant before = Instant.now();
		this.queue.schedule(ScheduleRequest.builder("meta", "x").id("meta-1").header("tenant", "acme").build());
		await().atMost(WAIT).until(() -> recorder.received.size() == 1);
		DeliveredMessage message = recorder.received.get(0).message();
		assertThat(message.headers()).containsEntry("tenant", "acme");
		assertThat(message.createdAt()).isAfterOrEqualTo(before.minusMillis(1));
		assertThat(message.isRedelivery()).isFalse();
	}

	@Test
	void aCancelledMessageIsNeverDelivered() {
		Recorder<String> recorder = new Recorder<>();
		this.container.register(ListenerRegistration.of("cancel", String.class, recorder));
		this.queue.schedule("cancel", "cancelled", "x", Duration.ofMillis(400));
		this.queue.schedule("cancel", "kept", "y", Duration.ofMillis(600));
		assertThat(this.queue.cancel("cancel", "cancelled")).isTrue();
		await().atMost(WAIT).until(() -> recorder.count("kept") == 1);
		assertThat(recorder.count("cancelled")).isZero();
		assertThat(this.admin.stats("cancel").pending()).isZero();
	}

	@Test
	void rescheduleMovesDelivery() {
		Recorder<String> recorder = new Recorder<>();
		this.container.register(ListenerRegistration.of("move", String.class, recorder));
		// far enough ahead that a loaded machine reschedules it before it is claimed
		this.queue.schedule("move", "later", "x", Duration.ofSeconds(3));
		this.queue.schedule("move", "sooner", "y", Duration.ofHours(1));
		assertThat(this.queue.reschedule("move", "later", Duration.ofHours(1))).isTrue();
		assertThat(this.queue.reschedule("move", "sooner", Duration.ofMillis(100))).isTrue();
		await().atMost(WAIT).until(() -> recorder.count("sooner") == 1);
		assertThat(recorder.count("later")).isZero();
		assertThat(this.admin.stats("move").waiting()).isEqualTo(1);
	}

	@Test
	void schedulingAnExistingIdDeliversOnce() {
		Recorder<String> recorder = new Recorder<>();
		this.container.register(ListenerRegistration.of("dedupe", String.class, recorder));
		assertThat(this.queue.schedule("dedupe", "order-42", "first", Duration.ofMillis(300))).isTrue();
		assertThat(this.queue.schedule("dedupe", "order-42", "second", Duration.ofMillis(100))).isFalse();
		this.queue.schedule("dedupe", "marker", "m", Duration.ofMillis(600));
		await().atMost(WAIT).until(() -> recorder.count("marker") == 1);
		assertThat(recorder.count("order-42")).isEqualTo(1);
		assertThat(recorder.received.get(0).payload()).isEqualTo("first");
	}

	@Test
	void aHandlerThatThrowsTwiceThenSucceedsIsTriedThreeTimesThenAcked() {
		AtomicInteger calls = new AtomicInteger();
		List<Integer> attempts = new ArrayList<>();
		this.container.register(ListenerRegistration.of("flaky", String.class, (payload, message) -> {
			attempts.add(message.attempt());
			if (calls.incrementAndGet() <= 2) {
				throw new IllegalStateException("not yet");
			}
		}, ListenerOptions.builder().maxAttempts(5).errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(50, FixedBackOff.UNLIMITED_ATTEMPTS))).build()));
		this.queue.schedule("flaky", "f-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("flaky").pending() == 0 && calls.get() == 3
				&& this.admin.stats("flaky").inflight() == 0);
		assertThat(attempts).containsExactly(1, 2, 3);
		assertThat(this.admin.stats("flaky").dead()).isZero();
		assertThat(RedisFixture.keysOf(redis.get(), "flaky")).as("an acked message leaves nothing behind").isEmpty();
	}

	@Test
	void aHandlerThatAlwaysThrowsEndsInTheDeadLettersAndReplayDeliversAgain() {
		AtomicInteger calls = new AtomicInteger();
		Recorder<String> afterReplay = new Recorder<>();
		this.container.register(ListenerRegistration.of("doomed", String.class, (payload, message) -> {
			if (calls.incrementAndGet() <= 3) {
				throw new IllegalStateException("broken #" + calls.get());
			}
			afterReplay.handle(payload, message);
		}, ListenerOptions.builder().maxAttempts(3).errorHandler(new DefaultDeliveryErrorHandler(
				DefaultDeliveryErrorHandler.exponentialBackOff(Duration.ofMillis(20), 2, Duration.ofMillis(100)))).build()));
		this.queue.schedule("doomed", "d-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("doomed").dead() == 1);
		assertThat(calls.get()).isEqualTo(3);
		DeadLetter letter = this.admin.deadLetters("doomed", 0, 10).get(0);
		assertThat(letter.id()).isEqualTo("d-1");
		assertThat(letter.attempts()).isEqualTo(3);
		assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: broken #3");
		assertThat(letter.payloadAsString()).isEqualTo("\"x\"");

		assertThat(this.admin.replayDeadLetter("doomed", "d-1")).isTrue();
		await().atMost(WAIT).until(() -> afterReplay.count("d-1") == 1);
		assertThat(afterReplay.received.get(0).message().attempt()).as("attempts start again").isEqualTo(1);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "doomed").isEmpty());
	}

	@Test
	void aPayloadThatCannotBeReadGoesToTheDeadLettersAtOnce() {
		AtomicInteger calls = new AtomicInteger();
		this.container.register(new ListenerRegistration<>("typed", Amount.class, (payload, message) -> calls.incrementAndGet(),
				ListenerOptions.builder().maxAttempts(10).build()));
		this.queue.schedule("typed", "bad", "not an object", Duration.ZERO);
		this.queue.schedule("typed", "good", new Amount(5), Duration.ofMillis(50));
		await().atMost(WAIT).until(() -> this.admin.stats("typed").dead() == 1 && calls.get() == 1);
		DeadLetter letter = this.admin.deadLetters("typed", 0, 1).get(0);
		assertThat(letter.id()).isEqualTo("bad");
		assertThat(letter.attempts()).as("never retried").isEqualTo(1);
		assertThat(letter.error()).contains("PayloadConversionException").contains("Amount");
	}

	@Test
	void nonRetryableExceptionsSkipTheRetries() {
		this.container.register(ListenerRegistration.of("rules", String.class, (payload, message) -> {
			throw new UnsupportedOperationException("rejected by rule");
		}, ListenerOptions.builder()
			.errorHandler(new DefaultDeliveryErrorHandler().withNotRetryable(UnsupportedOperationException.class)).build()));
		this.queue.schedule("rules", "r-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("rules").dead() == 1);
		assertThat(this.admin.deadLetters("rules", 0, 1).get(0).attempts()).isEqualTo(1);
	}

	@Test
	void genericPayloadTypesAreRead() {
		Recorder<Object> recorder = new Recorder<>();
		this.container.register(new ListenerRegistration<>("lists",
				new ParameterizedTypeReference<List<Amount>>() { }.getType(), recorder, ListenerOptions.defaults()));
		this.queue.schedule("lists", List.of(new Amount(1), new Amount(2)), Duration.ZERO);
		await().atMost(WAIT).until(() -> recorder.received.size() == 1);
		assertThat(recorder.received.get(0).payload()).isEqualTo(List.of(new Amount(1), new Amount(2)));
	}

	@Test
	void aTopicRegisteredTwiceIsRejected() {
		this.container.register(ListenerRegistration.of("once", String.class, new Recorder<>()));
		org.assertj.core.api.Assertions
			.assertThatIllegalStateException()
			.isThrownBy(() -> this.container.register(ListenerRegistration.of("once", String.class, new Recorder<>())))
			.withMessageContaining("Topic 'once' already has the listener");
	}

	@Test
	void aListenerThatDoesNotLeaseAheadLeasesNothingBeforeItsDueTime() {
		// due so close together that a listener leasing ahead would lease most of them a millisecond or more early;
		// the lease deadline Redis stored, less the lease, is the Redis time (ms) of the claim that leased each
		Duration lease = Duration.ofSeconds(60);
		Map<String, Long> leasedAt = new ConcurrentHashMap<>();
		Map<String, Instant> due = new ConcurrentHashMap<>();
		this.container.register(ListenerRegistration.of("strict", String.class, (payload, message) -> {
			String deadline = redis.get().call("ZSCORE", RedisFixture.PREFIX + ":{strict}:leased", message.id());
			leasedAt.put(message.id(), Long.parseLong(deadline) - lease.toMillis());
			due.put(message.id(), message.dueAt());
		}, ListenerOptions.builder().concurrency(4).visibilityTimeout(lease).leaseAhead(false).build()));
		scheduleAMillisecondApart("strict", "s-", 200);

		await().atMost(WAIT).until(() -> leasedAt.size() == 200);
		assertThat(leasedAt).allSatisfy((id, claimMillis) -> assertThat(claimMillis)
			.as(id + " leased no earlier than the millisecond it fell due in")
			.isGreaterThanOrEqualTo(due.get(id).toEpochMilli()));
	}

	@Test
	void aBacklogLargerThanTheBatchIsDrainedWithoutWaitingForThePoll() {
		Recorder<Integer> recorder = new Recorder<>();
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			requests.add(ScheduleRequest.builder("backlog", i).build());
		}
		this.queue.scheduleAll(requests);
		this.container.register(new ListenerRegistration<>("backlog", Integer.class, recorder,
				ListenerOptions.builder().concurrency(8).batchSize(10).build()));
		await().atMost(WAIT).until(() -> recorder.received.size() == 500);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "backlog").isEmpty());
		assertThat(recorder.countsById.values()).allMatch((count) -> count.get() == 1);
	}

	/** Schedules {@code count} messages due a millisecond apart, the first in half a second. */
	private void scheduleAMillisecondApart(String topic, String idPrefix, int count) {
		Instant first = Instant.now().plusMillis(500);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, "x").id(idPrefix + i).dueAt(first.plusMillis(i)).build());
		}
		this.queue.scheduleAll(requests);
	}

	record Amount(int value) {
	}

}
