package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicCounts;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link ListenerConsumer}, one run of a listener: its start (all or nothing), its stop's first step (what waits for a
 * handler goes back at once) and its drain (a handler past the timeout is interrupted, and its message handed back with
 * the attempt counted). Real Redis, real partitions and handler threads; the wake-up timer is not started, so the
 * partitions claim when they start and when asked, never on a poll.
 */
class ListenerConsumerTests {

	private static final String TOPIC = "consumer";

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final LettuceConnectionFactory factory = this.fixture.connectionFactory();

	private final RedisMessageStore store = this.fixture.store(this.factory);

	private final WakeUpTimer wakeUps = new WakeUpTimer(this.factory, Duration.ofMillis(5), Duration.ofMinutes(1));

	private final ExecutorService io = Executors.newCachedThreadPool();

	private final ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor();

	/** Lets blocked handlers end (at the end of each test). */
	private final CountDownLatch release = new CountDownLatch(1);

	private final List<String> started = new CopyOnWriteArrayList<>();

	private ListenerConsumer consumer;

	@AfterEach
	void tearDown() {
		this.release.countDown();
		if (this.consumer != null) {
			this.consumer.beginStop();
			this.consumer.drain(WAIT);
		}
		this.io.shutdownNow();
		this.maintenance.shutdownNow();
		this.fixture.close();
	}

	@Test
	void startFailsAndStartsNothingWhenRedisKeepsAnotherPartitionCount() {
		this.store.partitions().change(TOPIC, 3);
		this.consumer = consumer(2, ListenerOptions.builder().build(), blocking());

		assertThatIllegalStateException().isThrownBy(() -> this.consumer.start(this.io, this.maintenance))
			.withMessageContaining("3 partition(s) in Redis");

		assertThat(this.consumer.isActive()).isFalse();
		assertThat(this.consumer.inFlight()).isZero();
		// no wake channel of the listener was registered
		this.wakeUps.register(wakeChannel(0), () -> {
		}).close();
		this.wakeUps.register(wakeChannel(1), () -> {
		}).close();
	}

	@Test
	void aStartThatFailsPartWayUndoesWhatItStarted() {
		this.store.partitions().check(TOPIC, 2);
		for (int i = 0; i < 3; i++) {
			scheduleNow(TopicKeys.partitionName(TOPIC, 0), "m" + i, i);
		}
		// partition 1 cannot register its wake channel: partition 0 has started (and claimed) by then
		this.wakeUps.register(wakeChannel(1), () -> {
		});
		this.consumer = consumer(2, ListenerOptions.builder().concurrency(2).batchSize(4).build(), blocking());

		assertThatIllegalStateException().isThrownBy(() -> this.consumer.start(this.io, this.maintenance))
			.withMessageContaining("registered already");

		assertThat(this.consumer.isActive()).isFalse();
		// partition 0's messages are back, uncharged, at once (a claim that returns later hands back what it leased)
		await().atMost(WAIT).until(() -> counts(0).leased() == 0 && counts(0).ready() == 3);
		assertThat(redis.get().call("HLEN", RedisFixture.PREFIX + ":{" + TOPIC + "}:tries")).isEqualTo("0");
		// partition 0's wake channel is free again
		this.wakeUps.register(wakeChannel(0), () -> {
		}).close();
		await().atMost(WAIT).until(() -> this.consumer.inFlight() == 0);
	}

	@Test
	void beginStopHandsBackWhatWaitsForAHandlerAtOnceUncharged() {
		for (int i = 0; i < 4; i++) {
			scheduleNow(TOPIC, "m" + i, i);
		}
		this.consumer = consumer(1, ListenerOptions.builder().concurrency(1).batchSize(4).build(), blocking());
		this.consumer.start(this.io, this.maintenance);
		await().atMost(WAIT).until(() -> this.started.size() == 1 && this.consumer.prefetched() == 3);
		assertThat(this.started).containsExactly("m0");

		this.consumer.beginStop();

		assertThat(this.consumer.isActive()).isFalse();
		assertThat(this.consumer.prefetched()).isZero();
		for (String waiting : List.of("m1", "m2", "m3")) {
			assertThat(call("ZSCORE", key("leased"), waiting)).as(waiting + " no longer leased").isNull();
			assertThat(call("ZSCORE", key("pending"), waiting)).as(waiting + " pending again").isNotNull();
		}
		assertThat(call("ZSCORE", key("leased"), "m0")).as("its handler still runs").isNotNull();
		// the running handler ends with its own outcome
		this.release.countDown();
		this.consumer.drain(WAIT);
		assertThat(this.started).containsExactly("m0");
		assertThat(call("HLEN", key("tries"))).as("no attempt counted").isEqualTo("0");
		assertThat(counts(0).ready()).isEqualTo(3);
		assertThat(call("ZSCORE", key("pending"), "m0")).as("m0 acknowledged").isNull();
		assertThat(counts(0).leased()).isZero();
	}

	@Test
	void drainInterruptsAHandlerPastTheTimeoutAndHandsItsMessageBackWithTheAttemptCounted() {
		scheduleNow(TOPIC, "stubborn", 0);
		AtomicBoolean interrupted = new AtomicBoolean();
		this.consumer = consumer(1, ListenerOptions.builder().concurrency(1).build(), (payload, message) -> {
			this.started.add(message.id());
			// ignores interrupts until the test ends
			while (this.release.getCount() > 0) {
				try {
					this.release.await();
				}
				catch (InterruptedException ex) {
					interrupted.set(true);
				}
			}
		});
		this.consumer.start(this.io, this.maintenance);
		await().atMost(WAIT).until(() -> this.started.size() == 1);

		this.consumer.beginStop();
		this.consumer.drain(Duration.ofMillis(100));

		assertThat(interrupted).as("its thread was interrupted").isTrue();
		assertThat(call("ZSCORE", key("leased"), "stubborn")).isNull();
		assertThat(call("ZSCORE", key("pending"), "stubborn")).as("handed back at once").isNotNull();
		assertThat(call("HGET", key("tries"), "stubborn")).as("the attempt counted").isEqualTo("1");
		assertThat(call("SISMEMBER", key("suspect"), "stubborn")).isEqualTo("1");
		assertThat(call("HGET", key("error"), "stubborn")).contains("shutdown timeout of 100 ms");
	}

	private DelayedMessageHandler<String> blocking() {
		return (payload, message) -> {
			this.started.add(message.id());
			this.release.await();
		};
	}

	private ListenerConsumer consumer(int partitions, ListenerOptions options, DelayedMessageHandler<String> handler) {
		ContainerProperties properties = new ContainerProperties();
		return new ListenerConsumer(ListenerRegistration.of(TOPIC, String.class, handler, options), partitions,
				new ListenerConsumer.Parts(this.store, this.fixture.converter(), this.wakeUps, properties,
						new CrashIsolation()));
	}

	/** Schedules a message due now in a partition; {@code order} keeps the claim order. */
	private void scheduleNow(String partition, String id, int order) {
		this.store.messages().schedule(partition, List.of(new NewMessage(id, DueTime.in(order),
				Instant.now(), Map.of(), this.fixture.converter().write("x"))));
	}

	private TopicCounts counts(int partition) {
		return this.store.messages().stats(TopicKeys.partitionName(TOPIC, partition));
	}

	private String wakeChannel(int partition) {
		return this.store.keys().wakeChannel(TopicKeys.partitionName(TOPIC, partition));
	}

	private static String call(String... args) {
		return redis.get().call(args);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
