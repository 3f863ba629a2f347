package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A message that kills its JVM, and a neighbour that was running beside it when it did: both come back as suspects
 * when their leases run out, and a consumer runs one suspect at a time, so the neighbour is not killed again with
 * it on every attempt (found by the fault suite: with three attempts, a neighbour went to the dead letters).
 */
class CrashIsolationTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String TOPIC = "crashing";

	private final CountDownLatch release = new CountDownLatch(1);

	private final List<Jvm> jvms = new CopyOnWriteArrayList<>();

	private static final List<String> NEIGHBOURS = List.of("neighbour-0", "neighbour-1", "neighbour-2");

	/** Message id to the attempt of each run that finished. */
	private final Map<String, List<Integer>> handled = new ConcurrentHashMap<>();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.fixture.close();
	}

	@ParameterizedTest(name = "max attempts {0}")
	@ValueSource(ints = { 1, 2 })
	void aMessageThatKillsItsJvmMidBatchChargesNoNeighbourAndDiesAfterAtMostMaxAttemptsPlusOneRuns(int maxAttempts) {
		for (int i = 0; i < 3; i++) {
			this.queue.schedule(TOPIC, "neighbour-" + i, "neighbour-" + i, Duration.ZERO);
		}
		this.queue.schedule(TOPIC, "poison", "poison", Duration.ofMillis(1));
		// a fresh JVM each time the last one died, until the poison is a dead letter
		startJvm(maxAttempts);
		await().atMost(WAIT).until(() -> {
			if (this.jvms.get(this.jvms.size() - 1).dead.get()) {
				startJvm(maxAttempts);
			}
			return deadLetterIds().contains("poison");
		});
		await().atMost(WAIT).until(() -> this.handled.keySet().containsAll(NEIGHBOURS));
		assertThat(deadLetterIds()).as("no neighbour is a dead letter").containsExactly("poison");
		assertThat(this.handled).as("each neighbour ran to the end once, at its first attempt, uncharged")
			.containsOnlyKeys(NEIGHBOURS)
			.allSatisfy((id, attempts) -> assertThat(attempts).containsExactly(1));
		assertThat(this.jvms.size() - 1).as("runs of the poison: its batched run, then one per attempt, alone")
			.isEqualTo(maxAttempts + 1);
		assertThat(this.admin.deadLetters(TOPIC, 0, 10).get(0).attempts()).isEqualTo(maxAttempts);
	}

	@Test
	void aNeighbourThatFinishedJustBeforeAKillingSuspectStartedIsNotRunAgain() {
		// the poison was leased by a consumer that died: its lease runs out in 300 ms, and it becomes a suspect
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		this.queue.schedule(TOPIC, "poison", "poison", Duration.ZERO);
		assertThat(store.leases().claim(TOPIC, 1, 300, 1).messages()).hasSize(1);
		this.queue.schedule(TOPIC, "neighbour", "neighbour", Duration.ZERO);
		CountDownLatch neighbourStarted = new CountDownLatch(1);
		CountDownLatch neighbourMayEnd = new CountDownLatch(1);
		LettuceConnectionFactory doomedConnection = this.fixture.connectionFactory();
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).maxAttempts(1)
			.build();
		this.fixture.consumer(doomedConnection).listeners().register(ListenerRegistration.of(TOPIC, String.class,
				(payload, message) -> {
					if (payload.equals("poison")) {
						// it kills the JVM the moment it starts: nothing this JVM has not sent yet reaches Redis
						doomedConnection.destroy();
						this.release.await();
					}
					neighbourStarted.countDown();
					neighbourMayEnd.await();
					this.handled.computeIfAbsent(payload, (id) -> new CopyOnWriteArrayList<>()).add(message.attempt());
				}, options));
		await().atMost(WAIT).until(() -> neighbourStarted.getCount() == 0);
		// the poison's lease ran out and this consumer leased it as its suspect (charged): it waits for the neighbour
		await().atMost(WAIT).until(() -> String.valueOf(redis.get()
			.call("HGET", RedisFixture.PREFIX + ":{" + TOPIC + "}:lease", "poison")).endsWith(":1"));
		neighbourMayEnd.countDown();

		// a healthy consumer takes over: the poison goes to the dead letters, the neighbour is not run again
		this.fixture.consumer().listeners().register(ListenerRegistration.of(TOPIC, String.class,
				(payload, message) -> this.handled.computeIfAbsent(payload, (id) -> new CopyOnWriteArrayList<>())
					.add(message.attempt()),
				options));
		await().atMost(WAIT).until(() -> deadLetterIds().contains("poison"));
		await().atMost(WAIT).until(() -> this.admin.stats(TOPIC).inflight() == 0 && this.admin.stats(TOPIC).waiting() == 0);
		assertThat(this.handled).as("the neighbour's outcome reached Redis before the suspect started")
			.containsOnlyKeys("neighbour")
			.containsEntry("neighbour", List.of(1));
	}

	@Test
	void aSuspectWhoseHandlerThrowsAnErrorLetsTheNextSuspectRun() {
		// two messages running when their consumer died: both come back as suspects
		LettuceConnectionFactory doomedConnection = this.fixture.connectionFactory();
		CountDownLatch bothStarted = new CountDownLatch(2);
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build();
		this.fixture.consumer(doomedConnection).listeners().register(ListenerRegistration.of(TOPIC, String.class,
				(payload, message) -> {
					bothStarted.countDown();
					this.release.await();
				}, options));
		this.queue.schedule(TOPIC, "error", "error", Duration.ZERO);
		this.queue.schedule(TOPIC, "next", "next", Duration.ofMillis(1));
		await().atMost(WAIT).until(() -> bothStarted.getCount() == 0);
		doomedConnection.destroy();

		// the first suspect's handler throws an Error: the second must still get its turn on the same consumer
		this.fixture.consumer().listeners().register(ListenerRegistration.of(TOPIC, String.class,
				(payload, message) -> {
					if (payload.equals("error")) {
						throw new ExampleError();
					}
					this.handled.computeIfAbsent(payload, (id) -> new CopyOnWriteArrayList<>()).add(message.attempt());
				}, options));
		// the Error leaves the handler thread uncaught, as it would in an application
		await().dontCatchUncaughtExceptions().atMost(WAIT).until(() -> this.handled.containsKey("next"));
	}

	private List<String> deadLetterIds() {
		return this.admin.deadLetters(TOPIC, 0, 10).stream().map(DeadLetter::id).toList();
	}

	/**
	 * A consumer as a JVM of its own: the poison kills it (its connection is cut and none of its handlers finishes,
	 * as when the process dies); the neighbour takes a while, so that it runs beside a poison claimed with it.
	 */
	private void startJvm(int maxAttempts) {
		LettuceConnectionFactory connectionFactory = this.fixture.connectionFactory();
		Jvm jvm = new Jvm(connectionFactory, new CountDownLatch(1), new AtomicBoolean());
		this.jvms.add(jvm);
		ListenerOptions options = ListenerOptions.builder()
			.visibilityTimeout(Duration.ofSeconds(1))
			.maxAttempts(maxAttempts)
			.build();
		this.fixture.consumer(connectionFactory).listeners().register(ListenerRegistration.of(TOPIC, String.class,
				(payload, message) -> {
					if (payload.equals("poison")) {
						jvm.dead.set(true);
						jvm.poisonStarted.countDown();
						connectionFactory.destroy();
						this.release.await();
					}
					// a neighbour's work: done unless the poison kills the JVM meanwhile
					jvm.poisonStarted.await(500, TimeUnit.MILLISECONDS);
					if (jvm.dead.get()) {
						this.release.await();
					}
					this.handled.computeIfAbsent(payload, (id) -> new CopyOnWriteArrayList<>()).add(message.attempt());
				}, options));
	}

	@SuppressWarnings("serial")
	private static final class ExampleError extends Error {

		ExampleError() {
			super("an Error from a handler");
		}

	}

	private record Jvm(LettuceConnectionFactory connectionFactory, CountDownLatch poisonStarted, AtomicBoolean dead) {
	}

}
