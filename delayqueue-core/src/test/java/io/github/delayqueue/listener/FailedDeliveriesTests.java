package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FailedDeliveries}, the stage that carries out what a listener's {@link DeliveryErrorHandler} decides for a
 * failed delivery, against a real Redis and a real {@link Partition}: each action shows in the topic's keys.
 */
class FailedDeliveriesTests {

	private static final String TOPIC = "failures";

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	private final RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);

	private final List<Throwable> asked = new CopyOnWriteArrayList<>();

	private Partition partition;

	private FailedDeliveries failures;

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aRetryWaitsInRedisForItsDelayWithTheAttemptCountedAndTheError() {
		create(ListenerOptions.builder().build());
		ClaimedMessage message = leaseOne("retried");

		DelayQueueMonitor.Outcome outcome = apply(message, new IllegalStateException("boom"),
				FailureAction.retryIn(Duration.ofMinutes(5)));

		assertThat(outcome).isEqualTo(DelayQueueMonitor.Outcome.RETRY);
		assertThat(call("ZSCORE", key("leased"), "retried")).isNull();
		assertThat(Double.parseDouble(call("ZSCORE", key("pending"), "retried")))
			.as("due after the delay the error handler asked for")
			.isGreaterThan(this.fixture.redisTime().plus(Duration.ofMinutes(4)).toEpochMilli());
		assertThat(call("HGET", key("tries"), "retried")).isEqualTo("1");
		assertThat(call("HGET", key("error"), "retried")).isEqualTo("java.lang.IllegalStateException: boom");
		assertThat(this.store.messages().stats(TOPIC).retrying()).isEqualTo(1);
	}

	@Test
	void aDeadLetterIsBuriedWithItsError() {
		create(ListenerOptions.builder().build());
		ClaimedMessage message = leaseOne("buried");

		DelayQueueMonitor.Outcome outcome = apply(message, new IllegalArgumentException("bad"),
				FailureAction.deadLetter());

		assertThat(outcome).isEqualTo(DelayQueueMonitor.Outcome.DEAD);
		assertThat(call("ZSCORE", key("buried"), "buried")).isNotNull();
		assertThat(call("ZSCORE", key("pending"), "buried")).isNull();
		assertThat(call("ZSCORE", key("leased"), "buried")).isNull();
		assertThat(this.store.messages().stats(TOPIC).dead()).isEqualTo(1);
		assertThat(this.admin.deadLetters(TOPIC, 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.error()).isEqualTo("java.lang.IllegalArgumentException: bad"));
	}

	@Test
	void anAcknowledgementDeletesTheMessageThroughThePartitionsAcknowledger() {
		create(ListenerOptions.builder().build());
		ClaimedMessage message = leaseOne("recovered");

		DelayQueueMonitor.Outcome outcome = apply(message, new IllegalStateException("dealt with"),
				FailureAction.acknowledge());

		assertThat(outcome).isEqualTo(DelayQueueMonitor.Outcome.RECOVERED);
		// the partition holds nothing else and no claim is coming: the acknowledger sends it at once, on this thread
		assertThat(this.partition.acknowledger().pendingCount()).isZero();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void aRetryAskedForOnceMaxAttemptsHaveFailedDeadLetters() {
		create(ListenerOptions.builder().maxAttempts(2).errorHandler(asking(FailureAction.retryIn(Duration.ZERO)))
			.build());
		ClaimedMessage first = leaseOne("bounded");
		IllegalStateException failure = new IllegalStateException("again");
		FailureAction firstAction = this.failures.decide(delivered(first), failure);
		assertThat(firstAction).isEqualTo(FailureAction.retryIn(Duration.ZERO));
		apply(first, failure, firstAction);
		ClaimedMessage second = leaseOne("bounded");
		assertThat(second.attempt()).isEqualTo(2);

		FailureAction secondAction = this.failures.decide(delivered(second), failure);
		DelayQueueMonitor.Outcome outcome = apply(second, failure, secondAction);

		assertThat(this.asked).as("the error handler was asked both times").hasSize(2);
		assertThat(secondAction).isEqualTo(FailureAction.deadLetter());
		assertThat(outcome).isEqualTo(DelayQueueMonitor.Outcome.DEAD);
		assertThat(call("ZSCORE", key("buried"), "bounded")).isNotNull();
		assertThat(call("HGET", key("tries"), "bounded")).isEqualTo("2");
	}

	@Test
	void anErrorHandlerThatThrowsIsReplacedByTheDefault() {
		create(ListenerOptions.builder().errorHandler((message, failure) -> {
			this.asked.add(failure);
			throw new IllegalStateException("the error handler failed");
		}).build());
		DeliveredMessage message = delivered(leaseOne("handler-throws"));

		assertThat(this.failures.decide(message, new NonRetryableException("never works")))
			.isEqualTo(DefaultDeliveryErrorHandler.INSTANCE.handle(message, new NonRetryableException("x")))
			.isEqualTo(FailureAction.deadLetter());
		assertThat(this.failures.decide(message, new IllegalStateException("may work")).kind())
			.isEqualTo(DefaultDeliveryErrorHandler.INSTANCE.handle(message, new IllegalStateException("x")).kind())
			.isEqualTo(FailureAction.Kind.RETRY);
		assertThat(this.asked).hasSize(2);
	}

	@Test
	void anErrorHandlerThatAnswersNothingIsReplacedByTheDefault() {
		create(ListenerOptions.builder().errorHandler(asking(null)).build());
		DeliveredMessage message = delivered(leaseOne("handler-null"));

		assertThat(this.failures.decide(message, new NonRetryableException("never works")))
			.isEqualTo(FailureAction.deadLetter());
		assertThat(this.failures.decide(message, new IllegalStateException("may work")).kind())
			.isEqualTo(FailureAction.Kind.RETRY);
		assertThat(this.asked).hasSize(2);
	}

	@Test
	void theErrorTextIsCutTo2000Characters() {
		create(ListenerOptions.builder().build());
		ClaimedMessage message = leaseOne("long");
		IllegalStateException failure = new IllegalStateException("x".repeat(5000));

		apply(message, failure, FailureAction.retryIn(Duration.ZERO));

		String error = call("HGET", key("error"), "long");
		assertThat(error).hasSize(2000).startsWith("java.lang.IllegalStateException: xxx");
		assertThat(FailedDeliveries.describe(failure)).isEqualTo(error);
		assertThat(FailedDeliveries.describe(new IllegalStateException())).isEqualTo("java.lang.IllegalStateException");
	}

	@Test
	void anActionOnALeaseNoLongerCurrentChangesNothing() {
		create(ListenerOptions.builder().build());
		ClaimedMessage message = leaseOne("handed-back");
		this.store.leases().release(TOPIC, List.of(message.lease()));

		apply(message, new IllegalStateException("late"), FailureAction.deadLetter());

		assertThat(call("ZSCORE", key("buried"), "handed-back")).as("the lease it presented was not current").isNull();
		assertThat(call("ZSCORE", key("pending"), "handed-back")).isNotNull();
		assertThat(call("HGET", key("tries"), "handed-back")).isNull();
	}

	private DeliveryErrorHandler asking(FailureAction action) {
		return (message, failure) -> {
			this.asked.add(failure);
			return action;
		};
	}

	private void create(ListenerOptions options) {
		CrashIsolation isolation = new CrashIsolation();
		ListenerContext context = new ListenerContext(TOPIC, 1, options, this.store, new ContainerProperties(),
				new Prefetch(options), isolation, new ReadyQueue(new HandlerThreads(TOPIC, 1, null, null), isolation));
		this.partition = new Partition(context, 0);
		this.failures = new FailedDeliveries(context);
	}

	/** Schedules a message if it is not waiting yet, and leases it (its lease taken by the caller, as on failure). */
	private ClaimedMessage leaseOne(String id) {
		this.queue.schedule(TOPIC, id, "x", Duration.ZERO);
		List<ClaimedMessage> leased = this.store.leases().claim(TOPIC, 1, VISIBILITY.toMillis(), 10).messages();
		assertThat(leased).singleElement().satisfies((message) -> assertThat(message.id()).isEqualTo(id));
		return leased.get(0);
	}

	private DelayQueueMonitor.Outcome apply(ClaimedMessage message, Throwable failure, FailureAction action) {
		return this.failures.apply(this.partition, delivered(message), message.lease(), failure, action);
	}

	private static DeliveredMessage delivered(ClaimedMessage message) {
		return new DeliveredMessage(message.id(), TOPIC, message.dueAt(), Instant.EPOCH, message.attempt(), Map.of(),
				message.suspect());
	}

	private static String call(String... args) {
		return redis.get().call(args);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
