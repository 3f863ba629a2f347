package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplyDroppingProxy;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.core.RedisDelayedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connections dropped again and again ({@code CLIENT KILL TYPE normal} and {@code TYPE pubsub}) while messages are
 * scheduled and consumed: nothing accepted is lost, nothing is early. Lettuce reconnects; the wake subscription is
 * restored and claims at once.
 */
class DroppedConnectionTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private TestRedis redis;

	private RedisFixture fixture;

	@BeforeEach
	void setUp() {
		// a server of its own: the test kills every client of it
		this.redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();
		this.redis.start();
		this.fixture = new RedisFixture(this.redis);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
		this.redis.close();
	}

	@Test
	void droppedConnectionsLoseNothingAndDeliverNothingEarly() throws InterruptedException {
		Recorder<String> recorder = new Recorder<>();
		RedisFixture.Consumer consumer = this.fixture.consumer();
		// a claim whose reply a dropped connection lost is redelivered when its lease ends: keep that short
		consumer.listeners().register(ListenerRegistration.of("dropped", String.class, recorder,
				ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(2)).build()));
		RedisDelayedQueue queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
		int count = 400;
		AtomicInteger failedCalls = new AtomicInteger();
		Thread producer = new Thread(() -> {
			for (int i = 0; i < count; i++) {
				// about 500 a second, delays up to 0.4 s
				java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
				long deadline = System.nanoTime() + WAIT.toNanos();
				while (true) {
					try {
						// idempotent: a call whose reply was lost is made again
						queue.schedule("dropped", "m-" + i, "p", Duration.ofMillis(i));
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
		int kills = 0;
		while (producer.isAlive() && kills < 20) {
			this.redis.call("CLIENT", "KILL", "TYPE", (kills % 2 == 0) ? "normal" : "pubsub");
			kills++;
			java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
		}
		producer.join(WAIT.toMillis());

		assertThat(kills).as("connections dropped while producing").isGreaterThan(3);
		await().atMost(WAIT).until(() -> recorder.countsById.size() == count);
		assertThat(recorder.received).allSatisfy((received) -> assertThat(received.wallMillis())
			.as("not early").isGreaterThanOrEqualTo(received.message().dueAt().toEpochMilli()));
	}

	@Test
	void aClaimWhoseReplyIsLostHandsItsMessagesOnAtOnceRatherThanAfterTheirLease() throws Exception {
		Recorder<String> recorder = new Recorder<>();
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(this.redis.host(), this.redis.port())) {
			RedisFixture.Consumer consumer = this.fixture
				.consumer(this.fixture.connectionFactory("127.0.0.1", proxy.port()));
			// were the lost claim's messages left to their lease, they would come a minute late, one at a time
			consumer.listeners().register(ListenerRegistration.of("lost-reply", String.class, recorder,
					ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(60)).build()));
			RedisDelayedQueue queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
			// the claim that leases these holds the payload in its reply: the proxy drops that reply and the connection
			proxy.dropNextReplyHolding("lost-reply-payload");
			for (int i = 0; i < 5; i++) {
				queue.schedule("lost-reply", "m-" + i, "lost-reply-payload", Duration.ofMillis(300));
			}

			// the check: well within the lease (before the change, they came after it)
			await().atMost(Duration.ofSeconds(20)).until(() -> recorder.countsById.size() == 5);
			assertThat(proxy.dropped()).as("a claim's reply was dropped").isEqualTo(1);
		}
		assertThat(recorder.received).allSatisfy((received) -> assertThat(received.wallMillis()).as("not early")
			.isGreaterThanOrEqualTo(received.message().dueAt().toEpochMilli()));
	}

}
