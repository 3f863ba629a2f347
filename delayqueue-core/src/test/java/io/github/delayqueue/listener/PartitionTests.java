package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.wakeup.TopicTrigger;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link Partition}, one partition's part of a listener's run (its claim loop, lease keeper and acknowledger), against a
 * real Redis and a real {@link WakeUpTimer} whose fallback poll is a minute away: what it claims it claims because it
 * was started or woken. No handler thread takes from the ready queue here. (Not to be confused with
 * {@code io.github.delayqueue.PartitionTests}, which covers topics split into partitions end to end.)
 */
class PartitionTests {

	private static final String TOPIC = "partition";

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final LettuceConnectionFactory factory = this.fixture.connectionFactory();

	private final RedisMessageStore store = this.fixture.store(this.factory);

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	private final WakeUpTimer wakeUps = new WakeUpTimer(this.factory, Duration.ofMillis(5), Duration.ofMinutes(1));

	private final ExecutorService pool = Executors.newCachedThreadPool();

	/** Runs on the pool, counting what the partition runs on it. */
	private final AtomicInteger ioTasks = new AtomicInteger();

	private final Executor io = (task) -> {
		this.ioTasks.incrementAndGet();
		this.pool.execute(task);
	};

	private final ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor();

	private final CrashIsolation isolation = new CrashIsolation();

	private final ReadyQueue ready = new ReadyQueue(new HandlerThreads(TOPIC, 1, null, null), this.isolation);

	private final Partition partition = new Partition(new ListenerContext(TOPIC, 1, ListenerOptions.defaults(),
			this.store, new ContainerProperties(), new Prefetch(ListenerOptions.defaults()), this.isolation, this.ready),
			0);

	private final String wakeChannel = this.store.keys().wakeChannel(TOPIC);

	@AfterEach
	void tearDown() {
		this.partition.stopClaiming();
		this.wakeUps.stop();
		this.pool.shutdownNow();
		this.maintenance.shutdownNow();
		this.fixture.close();
	}

	@Test
	void startRegistersAWakeUpAndClaimsAtOnce() {
		this.wakeUps.start();
		this.queue.schedule(TOPIC, "waiting", "x", Duration.ZERO);

		this.partition.start(this.wakeUps, this.wakeChannel, this.io, this.maintenance);

		await().atMost(WAIT).until(() -> this.ready.size() == 1);
		assertThat(this.partition.name()).isEqualTo(TOPIC);
		assertThatIllegalStateException().as("its wake channel is registered")
			.isThrownBy(() -> this.wakeUps.register(this.wakeChannel, () -> {
			}));
		// a message that falls due later wakes it (the poll is a minute away)
		this.queue.schedule(TOPIC, "woken", "x", Duration.ofMillis(200));
		await().atMost(WAIT).until(() -> this.ready.size() == 2);
		assertThat(List.of(this.ready.poll(true, aSecondAhead()).message().id(), this.ready.poll(true, aSecondAhead()).message().id()))
			.containsExactly("waiting", "woken");
		assertThat(this.partition.leases().size()).isEqualTo(2);
	}

	@Test
	void stopClaimingClosesTheTrigger() throws InterruptedException {
		this.wakeUps.start();
		this.partition.start(this.wakeUps, this.wakeChannel, this.io, this.maintenance);
		await().atMost(WAIT).until(() -> !this.partition.isClaimFailing() && this.ioTasks.get() > 0);

		this.partition.stopClaiming();

		CountDownLatch woken = new CountDownLatch(1);
		TopicTrigger ours = this.wakeUps.register(this.wakeChannel, woken::countDown);
		try {
			int tasksBefore = this.ioTasks.get();
			this.partition.requestClaim();
			assertThat(this.ioTasks.get()).as("a request starts no claim").isEqualTo(tasksBefore);
			this.queue.schedule(TOPIC, "after-stop", "x", Duration.ZERO);
			// the wake reaches the channel's one trigger, ours (or the subscription's start fires it)
			assertThat(woken.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(this.ioTasks.get()).as("nor does a wake").isEqualTo(tasksBefore);
			assertThat(this.ready.size()).isZero();
			assertThat(this.store.messages().stats(TOPIC).leased()).isZero();
		}
		finally {
			ours.close();
		}
	}

	@Test
	void handBackRunningCountsTheAttemptOfAStartedMessageAndHandsBackUnstartedOnesUncharged() {
		this.queue.schedule(TOPIC, "running", "x", Duration.ZERO);
		this.queue.schedule(TOPIC, "waiting", "x", Duration.ofMillis(1));
		await().atMost(WAIT).until(() -> this.store.messages().stats(TOPIC).ready() == 2);
		List<ClaimedMessage> leased = this.store.leases().claim(TOPIC, 2, 30_000, 10).messages();
		assertThat(leased).extracting(ClaimedMessage::id).containsExactly("running", "waiting");
		leased.forEach((message) -> this.partition.leases().hold(message.lease(), System.nanoTime(), false));
		assertThat(this.partition.leases().started(leased.get(0).lease())).isTrue();

		this.partition.handBackRunning("still running at the end of the stop");

		assertThat(this.partition.leases().size()).isZero();
		assertThat(call("ZSCORE", key("leased"), "running")).isNull();
		assertThat(call("ZSCORE", key("pending"), "running")).isNotNull();
		assertThat(call("HGET", key("tries"), "running")).as("its attempt counted").isEqualTo("1");
		assertThat(call("SISMEMBER", key("suspect"), "running")).as("it may yet kill a JVM").isEqualTo("1");
		assertThat(call("HGET", key("error"), "running")).isEqualTo("still running at the end of the stop");
		assertThat(call("ZSCORE", key("leased"), "waiting")).isNull();
		assertThat(call("ZSCORE", key("pending"), "waiting")).isNotNull();
		assertThat(call("HGET", key("tries"), "waiting")).as("never started: uncharged").isNull();
		assertThat(call("SISMEMBER", key("suspect"), "waiting")).isEqualTo("0");
	}

	@Test
	void flushSendsTheWaitingAcknowledgements() {
		this.queue.schedule(TOPIC, "done", "x", Duration.ZERO);
		ClaimedMessage message = this.store.leases().claim(TOPIC, 1, 30_000, 10).messages().get(0);
		this.partition.leases().hold(message.lease(), System.nanoTime(), false);
		assertThat(this.partition.leases().take(message.lease())).isTrue();
		this.partition.acknowledger().claimExpected(true);
		this.partition.acknowledger().acknowledge(message.lease(), false);
		assertThat(this.partition.acknowledger().pendingCount()).as("waits for a claim to ride on").isEqualTo(1);
		assertThat(this.store.messages().stats(TOPIC).leased()).isEqualTo(1);

		this.partition.flush();

		assertThat(this.partition.acknowledger().pendingCount()).isZero();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("acknowledged when flush returned").isEmpty();
	}

	private static String call(String... args) {
		return redis.get().call(args);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

	/** A time by which any message leased ahead of its due time (a few milliseconds at most) is due. */
	private static long aSecondAhead() {
		return System.nanoTime() + 1_000_000_000L;
	}

}
