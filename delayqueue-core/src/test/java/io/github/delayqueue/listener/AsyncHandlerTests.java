package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.Listeners;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicCounts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers whose work completes later: the lease is held until the work completes, and only then is the message
 * acknowledged or retried; how many are in flight is bounded by the async concurrency, not by threads. Each failure
 * mode spring-kafka and spring-amqp once shipped (a failed future never retried, an outcome never acknowledged) has a
 * test here.
 */
class AsyncHandlerTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ScheduledExecutorService later = Executors.newScheduledThreadPool(2);

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
		this.later.shutdownNow();
		this.fixture.close();
	}

	@Test
	void workCompletingLaterOnAnotherThreadAcknowledgesTheMessage() {
		List<String> completed = new CopyOnWriteArrayList<>();
		register("async-ok", (payload, message) -> completeLater(Duration.ofMillis(50), () -> {
			completed.add(message.id());
			return null;
		}), ListenerOptions.builder());
		for (int i = 0; i < 20; i++) {
			this.queue.schedule("async-ok", "m" + i, "x", Duration.ZERO);
		}

		await().atMost(WAIT).until(() -> counts("async-ok").waiting() + counts("async-ok").leased() == 0);
		assertThat(completed).hasSize(20).doesNotHaveDuplicates();
	}

	@Test
	void aBacklogLargerThanTheInFlightLimitDrainsWithoutWaitingForAPoll() {
		// a fallback poll of an hour: only the listener's own claims can take what is due after the first batch
		Listeners listeners = this.fixture
			.consumer(this.fixture.connectionFactory(), (containers) -> {
			}, Duration.ofHours(1))
			.listeners();
		AtomicInteger completed = new AtomicInteger();
		for (int i = 0; i < 2000; i++) {
			this.queue.schedule("async-backlog", "m" + i, "x", Duration.ZERO);
		}
		listeners.register(ListenerRegistration.of("async-backlog", String.class,
				(AsyncDelayedMessageHandler<String>) (payload, message) -> completeLater(Duration.ofMillis(300), () -> {
					completed.incrementAndGet();
					return null;
				}), ListenerOptions.builder().concurrency(2).asyncConcurrency(1000).build()));

		// with 1,000 in flight the listener holds no more leased than it runs: once what it leased is in flight
		// (well before the work's 300 ms are up), nothing waits to start, so the claims after them must be asked
		// for as the work completes and leases end
		await().atMost(WAIT).until(() -> {
			TopicCounts counts = counts("async-backlog");
			return counts.waiting() + counts.ready() + counts.leased() == 0;
		});
		assertThat(completed).as(() -> "counts " + counts("async-backlog")).hasValue(2000);
	}

	@Test
	void aFailedFutureIsRetriedAndThenDeadLettered() {
		Map<Integer, Boolean> attempts = new ConcurrentHashMap<>();
		register("async-fails", (payload, message) -> {
			attempts.put(message.attempt(), true);
			return CompletableFuture.failedFuture(new IllegalStateException("payment service down"));
		}, ListenerOptions.builder().maxAttempts(3).errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));
		this.queue.schedule("async-fails", "f", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> counts("async-fails").dead() == 1);
		assertThat(attempts).containsOnlyKeys(1, 2, 3);
		assertThat(this.store.deadLetters().list("async-fails", 0, 10).get(0).error())
			.contains("payment service down");
	}

	@Test
	void aNullFutureAndAnExceptionBeforeTheFutureAreFailuresToo() {
		Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
		register("async-bad", (payload, message) -> {
			int attempt = attempts.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if (attempt == 1) {
				if (message.id().equals("null")) {
					return null;
				}
				throw new IllegalArgumentException("refused before any work");
			}
			return CompletableFuture.completedFuture("done");
		}, ListenerOptions.builder().errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));
		this.queue.schedule("async-bad", "null", "x", Duration.ZERO);
		this.queue.schedule("async-bad", "throws", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> counts("async-bad").waiting() + counts("async-bad").leased() == 0);
		assertThat(attempts.get("null")).hasValue(2);
		assertThat(attempts.get("throws")).hasValue(2);
		assertThat(counts("async-bad").dead()).isZero();
	}

	@Test
	void workPastTheHandlerTimeoutIsCancelledAndRetried() {
		List<CompletableFuture<Object>> firstAttempts = new CopyOnWriteArrayList<>();
		register("async-slow", (payload, message) -> {
			if (message.attempt() == 1) {
				CompletableFuture<Object> never = new CompletableFuture<>();
				firstAttempts.add(never);
				return never;
			}
			return CompletableFuture.completedFuture(null);
		}, ListenerOptions.builder()
			.handlerTimeout(Duration.ofMillis(300))
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))));
		this.queue.schedule("async-slow", "s", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> counts("async-slow").waiting() + counts("async-slow").leased() == 0);
		assertThat(firstAttempts).hasSize(1);
		assertThat(firstAttempts.get(0)).as("the timed-out work is cancelled").isCancelled();
	}

	@Test
	void theAsyncConcurrencyBoundsTheWorkInFlightNotTheThreads() {
		AtomicInteger most = new AtomicInteger();
		List<CompletableFuture<Object>> open = new CopyOnWriteArrayList<>();
		register("async-bound", (payload, message) -> {
			// this one, and the work started before that has not completed
			int running = 1 + (int) open.stream().filter((work) -> !work.isDone()).count();
			most.accumulateAndGet(running, Math::max);
			CompletableFuture<Object> work = new CompletableFuture<>();
			open.add(work);
			return work;
		}, ListenerOptions.builder().concurrency(1).asyncConcurrency(5));
		for (int i = 0; i < 30; i++) {
			this.queue.schedule("async-bound", "b" + i, "x", Duration.ZERO);
		}

		// one thread starts five at once, and no more while they run
		await().atMost(WAIT).until(() -> open.size() == 5);
		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> open.size() == 5);
		await().atMost(WAIT).until(() -> {
			open.forEach((work) -> work.complete(null));
			return open.size() == 30 && open.stream().allMatch(CompletableFuture::isDone);
		});
		await().atMost(WAIT).until(() -> counts("async-bound").waiting() + counts("async-bound").leased() == 0);
		assertThat(open).hasSize(30);
		assertThat(most.get()).isEqualTo(5);
	}

	@Test
	void theLeaseIsHeldAndExtendedWhileTheWorkRunsLongerThanTheVisibilityTimeout() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		register("async-long", (payload, message) -> {
			deliveries.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			return completeLater(Duration.ofMillis(3500), () -> null);
		}, ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)));
		this.queue.schedule("async-long", "l", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> counts("async-long").waiting() + counts("async-long").leased() == 0);
		assertThat(deliveries.get("l")).as("never redelivered while its work ran").hasValue(1);
	}

	@Test
	void aStopWaitsForTheWorkInFlightWithinTheShutdownTimeout() {
		CompletableFuture<Object> work = new CompletableFuture<>();
		Listeners listeners = this.fixture.consumer().listeners();
		listeners.setShutdownTimeout(Duration.ofSeconds(10));
		listeners.register(ListenerRegistration.of("async-stop", String.class,
				(AsyncDelayedMessageHandler<String>) (payload, message) -> work, ListenerOptions.defaults()));
		this.queue.schedule("async-stop", "w", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> listeners.getInFlight("async-stop") == 1);

		this.later.schedule(() -> work.complete("done"), 500, TimeUnit.MILLISECONDS);
		listeners.stop();

		assertThat(counts("async-stop").waiting() + counts("async-stop").leased() + counts("async-stop").dead())
			.as("acknowledged before the stop returned").isZero();
	}

	private void register(String topic, AsyncDelayedMessageHandler<String> handler, ListenerOptions.Builder options) {
		Listeners listeners = this.fixture.consumer().listeners();
		listeners.register(ListenerRegistration.of(topic, String.class, handler, options.build()));
	}

	private CompletableFuture<Object> completeLater(Duration delay, java.util.concurrent.Callable<Object> work) {
		CompletableFuture<Object> result = new CompletableFuture<>();
		this.later.schedule(() -> {
			try {
				result.complete(work.call());
			}
			catch (Exception ex) {
				result.completeExceptionally(ex);
			}
		}, delay.toMillis(), TimeUnit.MILLISECONDS);
		return result;
	}

	private TopicCounts counts(String topic) {
		return this.store.messages().stats(topic);
	}

}
