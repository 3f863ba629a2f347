package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.StoredMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A partition's local batch: a suspect always starts first, whatever was put back meanwhile; a message leased ahead
 * of its due time joins the line only when it is due, and goes back with the rest on a stop.
 */
class LocalBatchTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final AtomicInteger listenerWaiting = new AtomicInteger();

	private final AtomicInteger arrivals = new AtomicInteger();

	private final LocalBatch batch = new LocalBatch(new LeaseKeeper("t",
			this.fixture.store(this.fixture.connectionFactory()), Duration.ofSeconds(30), new CrashIsolation()),
			this.listenerWaiting, this.arrivals::incrementAndGet);

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

	@AfterEach
	void tearDown() {
		this.timer.shutdownNow();
		this.fixture.close();
	}

	@Test
	void aMessageLeasedAheadJoinsTheLineWhenItIsDueAndNotBefore() {
		this.batch.start(this.timer);
		Instant serverTime = Instant.now();
		long accepted = System.nanoTime();
		this.batch.accept(new Claim(serverTime, List.of(message("ahead", false, serverTime.plusMillis(300)),
				message("due", false, serverTime.minusMillis(1))), 1000, 0), accepted);

		assertThat(this.batch.poll(true).message().id()).as("what is due starts at once").isEqualTo("due");
		assertThat(this.batch.poll(true)).as("not due yet").isNull();
		assertThat(this.batch.waiting()).isEqualTo(1);
		assertThat(this.listenerWaiting).as("no handler thread is started for it yet").hasValue(0);
		assertThat(this.arrivals).hasValue(1);

		await().atMost(Duration.ofSeconds(10)).until(() -> this.arrivals.get() == 2);
		Delivery ahead = this.batch.poll(true);
		long polled = System.nanoTime();
		assertThat(ahead.message().id()).isEqualTo("ahead");
		assertThat(polled - accepted).as("300 ms after the claim's reply at the earliest")
			.isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
		assertThat(this.listenerWaiting).hasValue(0);
	}

	@Test
	void aHandlerThreadLookingForWorkTakesADueMessageLeasedAheadWithoutWaitingForTheTimer() {
		// no timer: only a poll moves it
		Instant serverTime = Instant.now();
		this.batch.accept(new Claim(serverTime, List.of(message("ahead", false, serverTime.plusMillis(50))), 1000, 0),
				System.nanoTime());
		assertThat(this.batch.poll(true)).isNull();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.batch.poll(true) != null);
		assertThat(this.listenerWaiting).hasValue(0);
	}

	@Test
	void handingBackTakesMessagesLeasedAheadToo() {
		this.batch.start(this.timer);
		Instant serverTime = Instant.now();
		this.batch.accept(new Claim(serverTime, List.of(message("ahead", false, serverTime.plusMillis(100))), 1000, 0),
				System.nanoTime());
		this.batch.handBackWaiting();
		assertThat(this.batch.waiting()).isZero();
		assertThat(this.batch.held()).as("its lease went back").isZero();
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.batch.poll(true)).isNull());
		assertThat(this.arrivals).as("the timer found nothing to release").hasValue(0);
		assertThat(this.listenerWaiting).hasValue(0);
	}

	@Test
	void aBatchedMessagePutBackAfterASuspectArrivedDoesNotQueueBeforeIt() {
		this.batch.accept(claim(message("batched", false)), System.nanoTime());
		Delivery batched = this.batch.poll(true);
		assertThat(batched).isNotNull();
		// a claim leased a suspect meanwhile: the batched message may not start, and goes back
		this.batch.accept(claim(message("suspect", true)), System.nanoTime());
		this.batch.putBack(batched);

		Delivery next = this.batch.poll(false);
		assertThat(next).as("the suspect starts while batched messages may not").isNotNull();
		assertThat(next.message().id()).isEqualTo("suspect");
		assertThat(this.batch.poll(false)).isNull();
		assertThat(this.batch.poll(true).message().id()).isEqualTo("batched");
		assertThat(this.listenerWaiting).hasValue(0);
	}

	@Test
	void handingBackTakesTheSuspectToo() {
		this.batch.accept(claim(message("a", false), message("s", true)), System.nanoTime());
		assertThat(this.batch.waiting()).isEqualTo(2);
		assertThat(this.batch.isSuspectWaiting()).isTrue();
		this.batch.handBackWaiting();
		assertThat(this.batch.waiting()).isZero();
		assertThat(this.batch.isSuspectWaiting()).isFalse();
		assertThat(this.listenerWaiting).hasValue(0);
	}

	private static ClaimedMessage message(String id, boolean suspect) {
		return message(id, suspect, Instant.now());
	}

	private static ClaimedMessage message(String id, boolean suspect, Instant dueAt) {
		return new ClaimedMessage(new Lease(id, 1), dueAt, 1,
				new StoredMessage(Instant.now(), Map.of(), "\"x\"".getBytes(), null), suspect);
	}

	private static Claim claim(ClaimedMessage... messages) {
		return new Claim(Instant.now(), List.of(messages), 1000, 0);
	}

}
