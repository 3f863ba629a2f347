package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicCounts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batch listeners: each call takes several due messages; returning acknowledges them all, a
 * {@link BatchListenerFailedException} acknowledges exactly those before the message it names, any other failure
 * retries each message on its own attempts, and a message that kills its consumer comes back alone.
 */
class BatchListenerTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final CountDownLatch release = new CountDownLatch(1);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private RedisMessageStore store;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.fixture.close();
	}

	@Test
	void callsTakeUpToTheirMostMessagesAndReturningAcknowledgesThemAll() {
		for (int i = 0; i < 300; i++) {
			this.queue.schedule("batches", "m" + i, "p" + i, Duration.ZERO);
		}
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
		register("batches", (DelayedBatchHandler<String>) (payloads, messages) -> {
			assertThat(payloads).hasSameSizeAs(messages);
			for (int i = 0; i < payloads.size(); i++) {
				assertThat(payloads.get(i)).isEqualTo("p" + messages.get(i).id().substring(1));
				seen.computeIfAbsent(messages.get(i).id(), (id) -> new AtomicInteger()).incrementAndGet();
			}
			sizes.add(payloads.size());
		}, ListenerOptions.builder().concurrency(2).batchMaxMessages(50));

		await().atMost(WAIT).until(() -> empty("batches"));
		assertThat(seen).hasSize(300).allSatisfy((id, count) -> assertThat(count).as(id).hasValue(1));
		assertThat(sizes).allSatisfy((size) -> assertThat(size).isBetween(1, 50));
		assertThat(sizes.size()).as("calls for 300 messages, of up to 50 each").isLessThan(300);
	}

	@Test
	void aNamedFailureAcknowledgesTheMessagesBeforeItRetriesItAndHandsBackTheRestUncharged() {
		for (int i = 0; i < 5; i++) {
			this.queue.schedule("named", "m" + i, "p" + i, Duration.ZERO);
		}
		List<List<String>> calls = new CopyOnWriteArrayList<>();
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		register("named", (DelayedBatchHandler<String>) (payloads, messages) -> {
			List<String> ids = messages.stream().map(DeliveredMessage::id).toList();
			calls.add(ids);
			messages.forEach((message) -> attempts.computeIfAbsent(message.id(), (id) -> new CopyOnWriteArrayList<>())
				.add(message.attempt()));
			if (calls.size() == 1) {
				throw new BatchListenerFailedException("order m2 is locked", new IllegalStateException("locked"), 2);
			}
		}, ListenerOptions.builder()
			.concurrency(1)
			.batchMaxMessages(5)
			.batchMaxWait(Duration.ofSeconds(2))
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));

		await().atMost(WAIT).until(() -> empty("named"));
		assertThat(calls.get(0)).as("the first call took the five due messages").containsExactly("m0", "m1", "m2",
				"m3", "m4");
		assertThat(attempts.get("m0")).as("acknowledged before the named one").containsExactly(1);
		assertThat(attempts.get("m1")).as("acknowledged before the named one").containsExactly(1);
		assertThat(attempts.get("m2")).as("the named one, retried with its attempt counted").containsExactly(1, 2);
		assertThat(attempts.get("m3")).as("after it: delivered again, uncharged").containsExactly(1, 1);
		assertThat(attempts.get("m4")).as("after it: delivered again, uncharged").containsExactly(1, 1);
		assertThat(this.admin.deadLetters("named", 0, 10)).isEmpty();
	}

	@Test
	void aCallHoldingHalfOfWhatItsConsumerLeasesStopsWaitingForMore() {
		for (int i = 0; i < 40; i++) {
			this.queue.schedule("held", "m" + i, "p" + i, Duration.ZERO);
		}
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		// four leased at once: a call holding two waits for nothing a claim could bring (it waited the whole
		// minute before)
		register("held", (DelayedBatchHandler<String>) (payloads, messages) -> sizes.add(payloads.size()),
				ListenerOptions.builder().concurrency(1).batchSize(4).batchMaxMessages(100)
					.batchMaxWait(Duration.ofMinutes(1)));

		await().atMost(WAIT).until(() -> empty("held"));
		assertThat(sizes).allSatisfy((size) -> assertThat(size).isBetween(1, 4));
	}

	@Test
	void aFailureNamingNoMessageRetriesEachOnItsOwnAttemptsThenDeadLettersIt() {
		for (int i = 0; i < 3; i++) {
			this.queue.schedule("fails", "m" + i, "p" + i, Duration.ZERO);
		}
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		register("fails", (DelayedBatchHandler<String>) (payloads, messages) -> {
			messages.forEach((message) -> attempts.computeIfAbsent(message.id(), (id) -> new CopyOnWriteArrayList<>())
				.add(message.attempt()));
			throw new IllegalStateException("database down");
		}, ListenerOptions.builder()
			.maxAttempts(2)
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));

		await().atMost(WAIT).until(() -> this.admin.deadLetters("fails", 0, 10).size() == 3);
		assertThat(attempts).containsOnlyKeys("m0", "m1", "m2")
			.allSatisfy((id, seen) -> assertThat(seen).containsExactly(1, 2));
		assertThat(this.admin.deadLetters("fails", 0, 10)).allSatisfy((dead) -> {
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.error()).contains("database down");
		});
	}

	@Test
	void aMessageThatCannotBeReadFailsAloneAndTheOthersAreHandled() {
		this.queue.schedule("numbers", "one", "1", Duration.ZERO);
		this.queue.schedule("numbers", "text", "\"not a number\"", Duration.ZERO);
		this.queue.schedule("numbers", "two", "2", Duration.ZERO);
		List<Integer> handled = new CopyOnWriteArrayList<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("numbers", Integer.class,
				(DelayedBatchHandler<Integer>) (payloads, messages) -> handled.addAll(payloads),
				ListenerOptions.builder().batchMaxWait(Duration.ofMillis(500)).build()));

		await().atMost(WAIT).until(() -> this.admin.deadLetters("numbers", 0, 10).size() == 1 && handled.size() == 2);
		assertThat(handled).containsExactlyInAnyOrder(1, 2);
		assertThat(this.admin.deadLetters("numbers", 0, 10)).extracting(DeadLetter::id).containsExactly("text");
	}

	@Test
	void workCompletingLaterAcknowledgesTheBatchWhenItCompletes() {
		for (int i = 0; i < 40; i++) {
			this.queue.schedule("async-batches", "m" + i, "p" + i, Duration.ZERO);
		}
		List<String> completed = new CopyOnWriteArrayList<>();
		AtomicInteger failedOnce = new AtomicInteger();
		register("async-batches", (AsyncDelayedBatchHandler<String>) (payloads, messages) -> CompletableFuture
			.runAsync(() -> {
				if (failedOnce.getAndIncrement() == 0) {
					throw new BatchListenerFailedException("first call fails at its first", null, messages.get(0));
				}
				messages.forEach((message) -> completed.add(message.id()));
			}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)),
				ListenerOptions.builder().batchMaxMessages(10)
					.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));

		await().atMost(WAIT).until(() -> empty("async-batches"));
		assertThat(completed).hasSize(40).doesNotHaveDuplicates();
	}

	@Test
	void aMessageThatKillsItsConsumerInABatchComesBackAloneAndDiesWithinItsAttempts() {
		int maxAttempts = 2;
		for (int i = 0; i < 3; i++) {
			this.queue.schedule("crash", "neighbour-" + i, "neighbour-" + i, Duration.ZERO);
		}
		this.queue.schedule("crash", "poison", "poison", Duration.ZERO);
		List<List<String>> poisonCalls = new CopyOnWriteArrayList<>();
		Map<String, List<Integer>> handled = new ConcurrentHashMap<>();
		List<AtomicBoolean> consumers = new CopyOnWriteArrayList<>();
		Runnable start = () -> {
			LettuceConnectionFactory connection = this.fixture.connectionFactory();
			AtomicBoolean dead = new AtomicBoolean();
			consumers.add(dead);
			// one handler thread: with several, one may take a neighbour as its own batch while another gathers the
			// rest (a race of the threads, seen on a loaded machine), and the first batch would not hold all four
			ListenerOptions options = ListenerOptions.builder()
				.concurrency(1)
				.visibilityTimeout(Duration.ofSeconds(1))
				.maxAttempts(maxAttempts)
				.batchMaxWait(Duration.ofMillis(300))
				.build();
			this.fixture.consumer(connection).listeners().register(ListenerRegistration.of("crash", String.class,
					(DelayedBatchHandler<String>) (payloads, messages) -> {
						if (payloads.contains("poison")) {
							// the JVM dies: its connection is cut and no handler of its finishes
							poisonCalls.add(new ArrayList<>(payloads));
							dead.set(true);
							connection.destroy();
							this.release.await();
						}
						messages.forEach((message) -> handled
							.computeIfAbsent(message.id(), (id) -> new CopyOnWriteArrayList<>())
							.add(message.attempt()));
					}, options));
		};
		start.run();
		await().atMost(WAIT).until(() -> {
			if (consumers.get(consumers.size() - 1).get()) {
				start.run();
			}
			return this.admin.deadLetters("crash", 0, 10).stream().anyMatch((dead) -> dead.id().equals("poison"));
		});
		await().atMost(WAIT).until(() -> handled.keySet().containsAll(List.of("neighbour-0", "neighbour-1",
				"neighbour-2")));

		assertThat(poisonCalls.get(0)).as("the poison first came in a batch with its neighbours").hasSize(4);
		assertThat(poisonCalls.subList(1, poisonCalls.size())).as("then alone, once per attempt")
			.hasSize(maxAttempts)
			.allSatisfy((call) -> assertThat(call).containsExactly("poison"));
		assertThat(this.admin.deadLetters("crash", 0, 10)).extracting(DeadLetter::id).containsExactly("poison");
		assertThat(handled).as("each neighbour handled once, uncharged").containsOnlyKeys("neighbour-0",
				"neighbour-1", "neighbour-2").allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1));
	}

	@Test
	void aCallThatTimesOutAndNeverReturnsDoesNotHoldASuspectBackForTheMessageItCouldNotRead() {
		// a consumer that dies holding "suspect": once its lease runs out, the message comes back as a suspect
		this.queue.schedule("stuck", "suspect", "7", Duration.ZERO);
		AtomicBoolean died = new AtomicBoolean();
		LettuceConnectionFactory dying = this.fixture.connectionFactory();
		this.fixture.consumer(dying).listeners().register(ListenerRegistration.of("stuck", Integer.class,
				(DelayedBatchHandler<Integer>) (payloads, messages) -> {
					died.set(true);
					dying.destroy();
					this.release.await();
				}, ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build()));
		await().atMost(WAIT).untilTrue(died);

		// a call with a message it cannot read, whose handler times out and never returns
		this.queue.schedule("stuck", "unreadable", "\"not a number\"", Duration.ZERO);
		this.queue.schedule("stuck", "never-returns", "1", Duration.ZERO);
		List<List<Integer>> calls = new CopyOnWriteArrayList<>();
		AtomicBoolean blocked = new AtomicBoolean();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("stuck", Integer.class,
				(DelayedBatchHandler<Integer>) (payloads, messages) -> {
					calls.add(List.copyOf(payloads));
					if (payloads.contains(1) && blocked.compareAndSet(false, true)) {
						awaitIgnoringInterrupts(this.release);
					}
				}, ListenerOptions.builder()
					.concurrency(2)
					.visibilityTimeout(Duration.ofSeconds(1))
					.handlerTimeout(Duration.ofMillis(300))
					.batchMaxWait(Duration.ofMillis(500))
					.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5)))
					.build()));

		// the suspect ran alone although the call holding the unreadable message never returned (it waited for good)
		await().atMost(WAIT).until(() -> calls.contains(List.of(7)));
		assertThat(calls.get(0)).as("the call that never returned").containsExactly(1);
		assertThat(this.admin.deadLetters("stuck", 0, 10)).extracting(DeadLetter::id).containsExactly("unreadable");
	}

	private static void awaitIgnoringInterrupts(CountDownLatch latch) {
		boolean interrupted = false;
		while (true) {
			try {
				latch.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private void register(String topic, DelayedBatchHandler<String> handler, ListenerOptions.Builder options) {
		this.fixture.consumer().listeners().register(ListenerRegistration.of(topic, String.class, handler,
				options.build()));
	}

	private boolean empty(String topic) {
		TopicCounts counts = this.store.messages().stats(topic);
		return counts.waiting() + counts.ready() + counts.leased() == 0;
	}

}
