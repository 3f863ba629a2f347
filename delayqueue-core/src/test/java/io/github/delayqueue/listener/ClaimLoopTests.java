package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplyDroppingProxy;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.wakeup.TopicTrigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim loop arms its next claim its lookahead before the due time a claim returned, so that the next claim
 * leases the message before it falls due ({@link NextClaimTests} has the timing). A next claim within
 * {@link ClaimLoop#MAX_OWN_WAIT} (here: within the window a test gives) is waited for on the claiming thread itself,
 * which a request or a stop ends at once; a later one arms the trigger.
 */
class ClaimLoopTests {

	private static final String TOPIC = "claims";

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	/** Where the claims put what they lease; no handler thread takes from it here. */
	private final ReadyQueue batch = new ReadyQueue(new HandlerThreads(TOPIC, 1, null, null), new CrashIsolation());

	private final RecordingTrigger trigger = new RecordingTrigger();

	/** The thread that ran the loop's last claim run. */
	private final AtomicReference<Thread> claimThread = new AtomicReference<>();

	private final List<ClaimLoop> loops = new CopyOnWriteArrayList<>();

	@AfterEach
	void tearDown() {
		this.loops.forEach(ClaimLoop::stop);
		this.fixture.close();
	}

	@Test
	void aNearDueTimeIsWaitedForOnTheClaimingThreadNotByTheTrigger() {
		ClaimLoop loop = start(Duration.ofSeconds(60));
		this.queue.schedule(TOPIC, "soon", "x", Duration.ofSeconds(1));
		loop.request();

		await().atMost(Duration.ofSeconds(10)).until(() -> this.batch.size() == 1);
		Delivery delivery = this.batch.poll(true, aSecondAhead());
		assertThat(delivery.message().id()).isEqualTo("soon");
		assertThat(delivery.claimServerTime()).as("claimed no earlier than the most lookahead before its due time")
			.isAfterOrEqualTo(delivery.message().dueAt().minusMillis(5));
		assertThat(this.trigger.armed).as("the trigger was never armed").isEmpty();
	}

	@Test
	void aRequestEndsTheWaitAtOnce() {
		ClaimLoop loop = start(Duration.ofSeconds(60));
		this.queue.schedule(TOPIC, "far", "x", Duration.ofSeconds(40));
		loop.request();
		await().atMost(Duration.ofSeconds(10)).until(loop::isWaiting);
		assertThat(loop.isBusy()).as("acknowledgements go on their own while it waits").isFalse();

		this.queue.schedule(TOPIC, "now", "x", Duration.ZERO);
		loop.request();

		await().atMost(Duration.ofSeconds(10)).until(() -> this.batch.size() == 1);
		assertThat(this.batch.poll(true, aSecondAhead()).message().id()).isEqualTo("now");
		assertThat(this.trigger.armed).isEmpty();
	}

	@Test
	void aStopEndsTheWaitAtOnce() throws InterruptedException {
		ClaimLoop loop = start(Duration.ofSeconds(60));
		this.queue.schedule(TOPIC, "far", "x", Duration.ofSeconds(40));
		loop.request();
		await().atMost(Duration.ofSeconds(10)).until(loop::isWaiting);

		loop.stop();

		this.claimThread.get().join(10_000);
		assertThat(this.claimThread.get().isAlive()).as("the waiting claim thread ended").isFalse();
		assertThat(this.batch.size()).isZero();
	}

	@Test
	void aDueTimeBeyondTheWindowArmsTheTrigger() throws InterruptedException {
		ClaimLoop loop = start(ClaimLoop.MAX_OWN_WAIT);
		this.queue.schedule(TOPIC, "later", "x", Duration.ofSeconds(5));
		loop.request();

		await().atMost(Duration.ofSeconds(10)).until(() -> !this.trigger.armed.isEmpty());
		assertThat(this.trigger.armed.get(0)).isBetween(TimeUnit.SECONDS.toMicros(4), TimeUnit.SECONDS.toMicros(5));
		this.claimThread.get().join(10_000);
		assertThat(this.claimThread.get().isAlive()).as("no thread waits").isFalse();
	}

	@Test
	void aClaimWhoseReplyWasLostIsUndoneWhenTheLoopStopsBeforeClaimingAgain() throws Exception {
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(redis.get().host(), redis.get().port())) {
			LettuceConnectionFactory factory = this.fixture.connectionFactory("127.0.0.1", proxy.port());
			// connected before the proxy refuses new connections
			try (RedisConnection connection = factory.getConnection()) {
				assertThat(connection.ping()).isEqualTo("PONG");
			}
			ClaimLoop loop = start(Duration.ofSeconds(60), this.fixture.store(factory));
			this.queue.schedule(TOPIC, "lost", "lost-claim-payload", Duration.ZERO);
			// the claim runs in Redis, its reply is dropped, and Redis stays out of reach until the claim times out
			proxy.dropNextReplyHolding("lost-claim-payload");
			proxy.refuseConnections(true);
			loop.request();
			await().atMost(Duration.ofSeconds(20)).until(loop::isFailing);
			assertThat(proxy.dropped()).isEqualTo(1);
			assertThat(redis.get().call("ZCARD", key("pending"))).as("leased by the lost claim").isEqualTo("0");
			loop.stop();
			proxy.refuseConnections(false);

			loop.undoLostClaim();

			assertThat(redis.get().call("ZCARD", key("pending"))).as("back at once, not after the lease").isEqualTo("1");
			ClaimedMessage again = this.store.leases().claim(TOPIC, 1, 30_000, 10).messages().get(0);
			assertThat(again.id()).isEqualTo("lost");
			assertThat(again.suspect()).isFalse();
			assertThat(again.attempt()).isEqualTo(1);
		}
	}

	/** A loop whose claims each run on a new thread, kept for the test to watch. */
	private ClaimLoop start(Duration maxOwnWait) {
		return start(maxOwnWait, this.store);
	}

	private ClaimLoop start(Duration maxOwnWait, RedisMessageStore store) {
		ListenerOptions options = ListenerOptions.builder().build();
		CrashIsolation isolation = new CrashIsolation();
		ListenerContext context = new ListenerContext(TOPIC, 1, options, store, new ContainerProperties(),
				new Prefetch(options), isolation, this.batch);
		LeaseKeeper leases = new LeaseKeeper(TOPIC, store, options.visibilityTimeout(), isolation);
		Acknowledger acknowledger = new Acknowledger(TOPIC, store, options.visibilityTimeout(), leases);
		ClaimLoop loop = new ClaimLoop(context, 0, leases, acknowledger, maxOwnWait);
		this.loops.add(loop);
		loop.start((task) -> {
			Thread thread = new Thread(task, "claims");
			thread.setDaemon(true);
			this.claimThread.set(thread);
			thread.start();
		}, this.trigger);
		return loop;
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

	/** Records what the loop armed the trigger for, in microseconds. */
	private static final class RecordingTrigger implements TopicTrigger {

		final List<Long> armed = new CopyOnWriteArrayList<>();

		@Override
		public void armIn(long delay, TimeUnit unit) {
			this.armed.add(unit.toMicros(delay));
		}

		@Override
		public void fire() {
		}

		@Override
		public void close() {
		}

	}

	/** A time by which any message leased ahead of its due time (a few milliseconds at most) is due. */
	private static long aSecondAhead() {
		return System.nanoTime() + 1_000_000_000L;
	}

}
