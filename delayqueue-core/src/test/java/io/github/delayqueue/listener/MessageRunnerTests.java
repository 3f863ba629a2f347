package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link MessageRunner}, the stage that runs one message on a handler thread and settles its outcome, against a real
 * Redis, a real {@link Partition} (its {@link LeaseKeeper} and {@link Acknowledger}) and a real
 * {@link ListenerInvoker}. Each message is leased here by a claim of the store and held by the partition's lease keeper,
 * as a claim of the partition's claim loop would.
 */
class MessageRunnerTests {

	private static final String TOPIC = "runner";

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	private final ExecutorService io = Executors.newCachedThreadPool();

	private final ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor();

	/** What the monitor heard: one outcome per handled message. */
	private final List<DelayQueueMonitor.Outcome> outcomes = new CopyOnWriteArrayList<>();

	/** Payloads the handler was called with. */
	private final List<String> handled = new CopyOnWriteArrayList<>();

	/** Every failure the error handler was asked about. */
	private final List<Throwable> decided = new CopyOnWriteArrayList<>();

	private Partition partition;

	private MessageRunner runner;

	@AfterEach
	void tearDown() {
		this.io.shutdownNow();
		this.maintenance.shutdownNow();
		this.fixture.close();
	}

	@Test
	void aMessageWhoseLeaseMayHaveRunOutIsHandedBackNotRun() {
		start(recording(), options().build());
		this.queue.schedule(TOPIC, "stood-still", "x", Duration.ZERO);
		// the consumer stood still longer than the visibility timeout between the claim and the handler's start
		Delivery delivery = lease(System.nanoTime() - VISIBILITY.toNanos() - TimeUnit.SECONDS.toNanos(1));

		this.runner.run(delivery, this.partition);

		assertThat(this.handled).as("the handler did not start").isEmpty();
		assertThat(this.partition.leases().size()).isZero();
		assertHandedBackUncharged("stood-still");
		assertThat(this.outcomes).isEmpty();
	}

	@Test
	void aMessagePastItsExpiryIsHandedBackNotRun() {
		start(recording(), options().build());
		Instant deadline = this.fixture.redisTime().plusMillis(300);
		this.queue.schedule(ScheduleRequest.builder(TOPIC, "x").id("expiring").delay(Duration.ZERO)
			.expiresAt(deadline).build());
		Delivery delivery = lease(System.nanoTime());
		assertThat(delivery.message().expiry()).as("leased before its deadline").isNotNull();
		// its deadline passes while it waits for a handler thread
		await().atMost(WAIT).until(() -> this.fixture.redisTime().isAfter(deadline.plusMillis(50)));

		this.runner.run(delivery, this.partition);

		assertThat(this.handled).as("never delivered after its deadline").isEmpty();
		assertHandedBackUncharged("expiring");
		Claim next = this.store.leases().claim(TOPIC, 10, VISIBILITY.toMillis(), 10);
		assertThat(next.messages()).as("the next claim does not lease it again").isEmpty();
		assertThat(next.expired()).as("the next claim counts it past its deadline").isEqualTo(1);
	}

	@Test
	void aSuccessIsAcknowledgedThroughThePartitionsAcknowledger() {
		start(recording(), options().build());
		this.queue.schedule(TOPIC, "done", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());
		// a claim is coming: the acknowledger lets the acknowledgement ride on it
		this.partition.acknowledger().claimExpected(true);

		this.runner.run(delivery, this.partition);

		assertThat(this.handled).containsExactly("x");
		assertThat(this.outcomes).containsExactly(DelayQueueMonitor.Outcome.SUCCESS);
		assertThat(this.partition.leases().size()).as("its lease was taken").isZero();
		assertThat(this.partition.acknowledger().pendingCount()).as("waits in the acknowledger").isEqualTo(1);
		assertThat(call("ZSCORE", key("leased"), "done")).as("not yet acknowledged in Redis").isNotNull();
		// no claim comes after all: it goes on its own
		this.partition.acknowledger().claimExpected(false);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), TOPIC).isEmpty());
	}

	@Test
	void aSuspectsSuccessIsAcknowledgedAtOnce() {
		start(recording(), options().build());
		this.queue.schedule(TOPIC, "suspect", "x", Duration.ZERO);
		Delivery delivery = leaseSuspect();
		this.partition.acknowledger().claimExpected(true);

		this.runner.run(delivery, this.partition);

		assertThat(this.handled).containsExactly("x");
		assertThat(this.partition.acknowledger().pendingCount()).isZero();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("acknowledged in Redis when run returned").isEmpty();
	}

	@Test
	void aFailureGoesToTheErrorHandlerAndItsDecisionIsCarriedOut() {
		IllegalStateException boom = new IllegalStateException("boom");
		start((payload, message) -> {
			throw boom;
		}, options().errorHandler(decidingRetryIn(Duration.ofMinutes(1))).build());
		this.queue.schedule(TOPIC, "failing", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());

		this.runner.run(delivery, this.partition);

		assertThat(this.decided).containsExactly(boom);
		assertThat(this.outcomes).containsExactly(DelayQueueMonitor.Outcome.RETRY);
		assertRetrying("failing", "java.lang.IllegalStateException: boom");
		double due = Double.parseDouble(call("ZSCORE", key("pending"), "failing"));
		assertThat(due).as("waits the minute the error handler asked for")
			.isGreaterThan(this.fixture.redisTime().plusSeconds(50).toEpochMilli());
	}

	@Test
	void aFailureAtTheMomentTheHandlerTimeoutFiresIsDecidedOnce() {
		Thread handlerThread = Thread.currentThread();
		CountDownLatch mayThrow = new CountDownLatch(1);
		AtomicBoolean thrown = new AtomicBoolean();
		DeliveryErrorHandler errorHandler = (message, failure) -> {
			this.decided.add(failure);
			if (failure instanceof HandlerTimeoutException) {
				// the timeout decides now: the handler throws meanwhile and its thread waits for this decision
				mayThrow.countDown();
				await().atMost(WAIT).until(() -> thrown.get() && handlerThread.getState() == Thread.State.WAITING);
			}
			return FailureAction.retryIn(Duration.ofMinutes(1));
		};
		start((payload, message) -> {
			mayThrow.await();
			thrown.set(true);
			throw new IllegalStateException("failed as it timed out");
		}, options().handlerTimeout(Duration.ofMillis(100)).errorHandler(errorHandler).build());
		this.queue.schedule(TOPIC, "raced", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());

		this.runner.run(delivery, this.partition);

		assertThat(this.decided).as("the error handler was asked once, by the timeout")
			.singleElement()
			.isInstanceOf(HandlerTimeoutException.class);
		assertThat(this.outcomes).containsExactly(DelayQueueMonitor.Outcome.RETRY);
		assertRetrying("raced", HandlerTimeoutException.class.getName());
		assertThat(Thread.interrupted()).as("the handler had returned: its thread is not interrupted").isFalse();
	}

	@Test
	void anErrorIsRethrownAfterItsOutcomeWasRecorded() {
		FatalError fatal = new FatalError();
		start((payload, message) -> {
			throw fatal;
		}, options().errorHandler(decidingRetryIn(Duration.ofMinutes(1))).build());
		this.queue.schedule(TOPIC, "fatal", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());

		assertThatThrownBy(() -> this.runner.run(delivery, this.partition)).isSameAs(fatal);

		assertThat(this.decided).containsExactly(fatal);
		assertThat(this.outcomes).containsExactly(DelayQueueMonitor.Outcome.RETRY);
		assertRetrying("fatal", FatalError.class.getName());
	}

	@Test
	void anErrorThrownByAHandlerThatTimedOutIsRethrownToo() {
		FatalError fatal = new FatalError();
		CountDownLatch timedOut = new CountDownLatch(1);
		start((payload, message) -> {
			try {
				new CountDownLatch(1).await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				// interrupted by the timeout, once it had ended the delivery: the handler dies of an Error
				timedOut.await();
				throw fatal;
			}
		}, options().handlerTimeout(Duration.ofMillis(100)).errorHandler((message, failure) -> {
			this.decided.add(failure);
			timedOut.countDown();
			return FailureAction.retryIn(Duration.ofMinutes(1));
		}).build());
		this.queue.schedule(TOPIC, "fatal-late", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());

		assertThatThrownBy(() -> this.runner.run(delivery, this.partition)).isSameAs(fatal);

		assertThat(this.decided).singleElement().isInstanceOf(HandlerTimeoutException.class);
		assertRetrying("fatal-late", HandlerTimeoutException.class.getName());
	}

	@Test
	void anAssertionErrorIsAFailureLikeAnyOther() {
		AssertionError failed = new AssertionError("expected");
		start((payload, message) -> {
			throw failed;
		}, options().errorHandler(decidingRetryIn(Duration.ofMinutes(1))).build());
		this.queue.schedule(TOPIC, "asserting", "x", Duration.ZERO);
		Delivery delivery = lease(System.nanoTime());

		this.runner.run(delivery, this.partition);

		assertThat(this.decided).containsExactly(failed);
		assertRetrying("asserting", "java.lang.AssertionError: expected");
	}

	private ListenerOptions.Builder options() {
		return ListenerOptions.builder().visibilityTimeout(VISIBILITY).maxAttempts(10);
	}

	private DelayedMessageHandler<String> recording() {
		return (payload, message) -> this.handled.add(payload);
	}

	private DeliveryErrorHandler decidingRetryIn(Duration delay) {
		return (message, failure) -> {
			this.decided.add(failure);
			return FailureAction.retryIn(delay);
		};
	}

	private void start(DelayedMessageHandler<String> handler, ListenerOptions options) {
		ContainerProperties properties = new ContainerProperties();
		properties.setMonitor(new DelayQueueMonitor() {

			@Override
			public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception,
					boolean observed) {
				MessageRunnerTests.this.outcomes.add(outcome);
			}

		});
		CrashIsolation isolation = new CrashIsolation();
		ListenerContext context = new ListenerContext(TOPIC, 1, options, this.store, properties, new Prefetch(options),
				isolation, new ReadyQueue(new HandlerThreads(TOPIC, 1, null, null), isolation));
		this.partition = new Partition(context, 0);
		this.partition.acknowledger().start(this.io, this.maintenance);
		ListenerRegistration<String> registration = ListenerRegistration.of(TOPIC, String.class, handler, options);
		@SuppressWarnings("unchecked")
		ListenerRegistration<Object> listener = (ListenerRegistration<Object>) (ListenerRegistration<?>) registration;
		ListenerInvoker invoker = new ListenerInvoker(listener, this.fixture.converter(), properties.getMonitor(),
				ObservationRegistry.NOOP, null);
		this.runner = new MessageRunner(context, invoker);
		this.runner.start(this.io, this.maintenance);
	}

	/** Leases the next due message as the partition's claim loop would, the claim sent at {@code sentNanos}. */
	private Delivery lease(long sentNanos) {
		Claim claim = this.store.leases().claim(TOPIC, 1, VISIBILITY.toMillis(), 10);
		assertThat(claim.messages()).hasSize(1);
		return hold(claim, sentNanos);
	}

	/** Leases the one message waiting as a suspect: a first lease runs out without an outcome. */
	private Delivery leaseSuspect() {
		assertThat(this.store.leases().claim(TOPIC, 1, 50, 10).messages()).hasSize(1);
		Claim[] suspect = new Claim[1];
		long[] sent = new long[1];
		await().atMost(WAIT).until(() -> {
			sent[0] = System.nanoTime();
			suspect[0] = this.store.leases().claim(TOPIC, 1, VISIBILITY.toMillis(), 10);
			return !suspect[0].messages().isEmpty();
		});
		assertThat(suspect[0].messages().get(0).suspect()).isTrue();
		return hold(suspect[0], sent[0]);
	}

	private Delivery hold(Claim claim, long sentNanos) {
		ClaimedMessage message = claim.messages().get(0);
		this.partition.leases().hold(message.lease(), sentNanos, message.suspect());
		return new Delivery(message, 0, claim.serverTime(), System.nanoTime());
	}

	private void assertHandedBackUncharged(String id) {
		assertThat(call("ZSCORE", key("pending"), id)).as("pending again").isNotNull();
		assertThat(call("ZSCORE", key("leased"), id)).as("no longer leased").isNull();
		assertThat(call("HGET", key("tries"), id)).as("no attempt counted").isNull();
	}

	private void assertRetrying(String id, String error) {
		assertThat(call("ZSCORE", key("pending"), id)).as("waits for its retry").isNotNull();
		assertThat(call("ZSCORE", key("leased"), id)).isNull();
		assertThat(call("HGET", key("tries"), id)).as("the attempt counted once").isEqualTo("1");
		assertThat(call("HGET", key("error"), id)).startsWith(error);
	}

	private static String call(String... args) {
		return redis.get().call(args);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

	/** An error that is not an assertion: rethrown to the handler thread. */
	static final class FatalError extends Error {

		FatalError() {
			super("fatal");
		}

	}

}
