package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.Listeners;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler that runs past the handler timeout failed: the process is alive (its thread was interrupted), so its
 * message is retried with the backoff beside the listener's other messages, not isolated as a crash suspect that runs
 * alone and holds every other message of the listener back.
 */
class HandlerTimeoutTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aTimedOutMessageIsRetriedBesideTheOthersNotAlone() throws InterruptedException {
		// the hanging message's second attempt runs until released here, ignoring the interrupt, far beyond the test's
		// wait: other messages must not wait for it
		CountDownLatch release = new CountDownLatch(1);
		Map<Integer, DeliveredMessage> hangingAttempts = new ConcurrentHashMap<>();
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayedMessageHandler<String> handler = (payload, message) -> {
			if (message.id().equals("hangs")) {
				hangingAttempts.put(message.attempt(), message);
				if (message.attempt() == 1) {
					// ignores nothing: ends when the handler timeout interrupts it
					new CountDownLatch(1).await(60, TimeUnit.SECONDS);
				}
				else {
					// from the second attempt on, it ignores the interrupt and runs until released
					awaitUninterruptibly(release);
				}
				return;
			}
			handled.add(message.id());
		};
		Listeners listeners = this.fixture.consumer().listeners();
		listeners.register(ListenerRegistration.of("timeouts", String.class, handler, ListenerOptions.builder()
			.concurrency(4)
			.handlerTimeout(Duration.ofMillis(300))
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5)))
			.build()));
		try {
			this.queue.schedule("timeouts", "hangs", "x", Duration.ZERO);
			await().atMost(WAIT).until(() -> hangingAttempts.containsKey(2));

			assertThat(hangingAttempts.get(2).redelivered()).as("a timeout is a failure, not a crash").isFalse();
			this.queue.schedule("timeouts", "quick", "x", Duration.ZERO);
			await().atMost(WAIT).until(() -> handled.contains("quick"));
			assertThat(release.getCount()).as("handled while the timed-out message's retry still runs").isOne();
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aSuspectThatTimesOutAndNeverReturnsHoldsTheListenerBackNoLonger() throws InterruptedException {
		CountDownLatch release = new CountDownLatch(1);
		List<String> handled = new CopyOnWriteArrayList<>();
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		this.queue.schedule("stuck-suspect", "hangs", "x", Duration.ZERO);
		// a consumer leases it and dies: it comes back as a suspect
		assertThat(store.leases().claim("stuck-suspect", 1, 100, 10).messages()).hasSize(1);
		Listeners listeners = this.fixture.consumer().listeners();
		listeners.register(ListenerRegistration.of("stuck-suspect", String.class, (payload, message) -> {
			if (message.id().equals("hangs")) {
				awaitUninterruptibly(release);
				return;
			}
			handled.add(message.id());
		}, ListenerOptions.builder().handlerTimeout(Duration.ofMillis(200)).build()));
		try {
			await().atMost(WAIT).until(() -> store.messages().stats("stuck-suspect").retrying() == 1);
			this.queue.schedule("stuck-suspect", "next", "x", Duration.ZERO);
			await().atMost(WAIT).until(() -> handled.contains("next"));
			assertThat(release.getCount()).as("handled while the timed-out suspect's thread still runs").isOne();
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aBatchedHandlerThatTimesOutAndNeverReturnsHoldsNoSuspectBack() throws InterruptedException {
		CountDownLatch release = new CountDownLatch(1);
		List<String> handled = new CopyOnWriteArrayList<>();
		List<String> suspects = new CopyOnWriteArrayList<>();
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		Listeners listeners = this.fixture.consumer().listeners();
		listeners.register(ListenerRegistration.of("stuck-batched", String.class, (payload, message) -> {
			if (message.id().equals("hangs")) {
				awaitUninterruptibly(release);
				return;
			}
			if (message.redelivered()) {
				suspects.add(message.id());
			}
			handled.add(message.id());
		}, ListenerOptions.builder()
			.handlerTimeout(Duration.ofMillis(200))
			.errorHandler((message, failure) -> FailureAction.deadLetter())
			.build()));
		try {
			this.queue.schedule("stuck-batched", "hangs", "x", Duration.ZERO);
			await().atMost(WAIT).until(() -> store.messages().stats("stuck-batched").dead() == 1);
			// another consumer leases a message and dies: it comes back as a suspect, which runs once no batched
			// handler runs
			// another consumer leases a message ahead of its due time and dies: it comes back as a suspect when due,
			// which runs once no batched handler runs
			this.queue.schedule("stuck-batched", "suspect", "x", Duration.ofSeconds(1));
			assertThat(store.leases()
				.claim("stuck-batched", List.of(), 1, 3000, 10, true, TimeUnit.MILLISECONDS.toMicros(1500))
				.messages()).extracting((message) -> message.id()).containsExactly("suspect");
			await().atMost(WAIT).until(() -> handled.contains("suspect"));
			assertThat(suspects).as("it ran as a suspect").containsExactly("suspect");
			assertThat(release.getCount()).as("run while the timed-out handler's thread still runs").isOne();
		}
		finally {
			release.countDown();
		}
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (latch.getCount() > 0 && System.nanoTime() - deadline < 0) {
			try {
				latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				// ignored on purpose: a handler that does not stop when interrupted
			}
		}
	}

}
