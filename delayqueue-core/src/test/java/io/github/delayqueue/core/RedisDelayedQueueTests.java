package io.github.delayqueue.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.InvalidTopicException;
import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.StoredMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RedisDelayedQueueTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void scheduleStoresAWaitingMessageWithAGeneratedId() {
		String id = this.queue.schedule("orders", new Order("o-1", 42), Duration.ofMinutes(5));
		assertThat(id).hasSize(22).matches("[A-Za-z0-9_-]+");
		assertThat(this.admin.stats("orders")).usingRecursiveComparison()
			.ignoringFields("nextDueAt")
			.isEqualTo(new TopicStats("orders", 1, 0, 0, 0, null));
		assertThat(redis.get().call("HEXISTS", "dqtest:{orders}:body:0", id)).isEqualTo("1");
	}

	@Test
	void aDelayCountsFromTheCallNotFromWhenItsScriptRan() {
		// the call is slow before it reaches Redis: its payload is written only once the Redis clock is 400 ms past
		// the call's start
		PayloadConverter json = PayloadConverter.json();
		AtomicReference<Instant> called = new AtomicReference<>();
		RedisDelayedQueue slow = new RedisDelayedQueue(this.store, new PayloadConverter() {
			@Override
			public byte[] write(Object payload) {
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(5))
					.until(() -> RedisDelayedQueueTests.this.fixture.redisTime().isAfter(called.get().plusMillis(400)));
				return json.write(payload);
			}

			@Override
			public Object read(byte[] bytes, Type type) {
				return json.read(bytes, type);
			}
		});
		called.set(this.fixture.redisTime());
		String id = slow.schedule("orders", "x", Duration.ofMillis(1_000));
		Instant returned = this.fixture.redisTime();

		Instant dueAt = this.queue.lookup("orders", id).orElseThrow().dueAt();
		assertThat(dueAt).as("never before the call plus the delay").isAfterOrEqualTo(called.get().plusMillis(1_000));
		assertThat(dueAt).as("the 400 ms before the script ran are not added")
			.isBefore(returned.plusMillis(1_000).minusMillis(300));
	}

	@Test
	void concurrentSchedulesThatShareScriptCallsEachGetTheirOwnAnswer() throws Exception {
		int threads = 8;
		int perThread = 300;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CyclicBarrier start = new CyclicBarrier(threads);
		List<Future<List<Boolean>>> answers = new ArrayList<>();
		try {
			for (int t = 0; t < threads; t++) {
				int thread = t;
				answers.add(pool.submit(() -> {
					start.await();
					List<Boolean> mine = new ArrayList<>();
					for (int i = 0; i < perThread; i++) {
						// every id is scheduled by two threads, each with its own payload
						String id = "c-" + ((thread / 2) * perThread + i);
						mine.add(this.queue.schedule("shared", id, "from-" + thread, Duration.ofMinutes(5)));
					}
					return mine;
				}));
			}
			int stored = 0;
			for (int t = 0; t < threads; t += 2) {
				List<Boolean> first = answers.get(t).get(30, TimeUnit.SECONDS);
				List<Boolean> second = answers.get(t + 1).get(30, TimeUnit.SECONDS);
				for (int i = 0; i < perThread; i++) {
					assertThat(first.get(i) ^ second.get(i)).as("exactly one of the two stored id %s", i).isTrue();
					String id = "c-" + ((t / 2) * perThread + i);
					String expected = "\"from-" + (first.get(i) ? t : t + 1) + "\"";
					assertThat(new String(claimNow("shared", id).payload(), StandardCharsets.UTF_8))
						.as("the payload of the one that said it stored %s", id)
						.isEqualTo(expected);
					stored++;
				}
			}
			assertThat(stored).isEqualTo(threads / 2 * perThread);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void sharedCallsAreKeptForABoundedNumberOfTopics() {
		for (int i = 0; i < 1100; i++) {
			this.queue.schedule("topic-" + i, "x", Duration.ofMinutes(5));
		}
		assertThat(this.queue.sharedCallTopics()).isBetween(1, 1024);
		assertThat(this.admin.knownTopics()).hasSize(1100);
	}

	@Test
	void generatedIdsDiffer() {
		String first = this.queue.schedule("orders", "a", Duration.ofMinutes(5));
		String second = this.queue.schedule("orders", "a", Duration.ofMinutes(5));
		assertThat(first).isNotEqualTo(second);
	}

	@Test
	void dueTimeIsMeasuredOnTheRedisClock() {
		long before = redisMillis();
		String id = this.queue.schedule("orders", "x", Duration.ofSeconds(10));
		long after = redisMillis();
		long due = (long) Double.parseDouble(RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get(id));
		assertThat(due).isBetween(before + 10_000, after + 10_000);
	}

	@Test
	void subMicrosecondDelaysAreRoundedUpNeverDown() {
		assertThat(MessagePreparation.toMicrosRoundedUp(Duration.ofNanos(1))).isEqualTo(1);
		assertThat(MessagePreparation.toMicrosRoundedUp(Duration.ofMillis(5))).isEqualTo(5000);
		assertThat(MessagePreparation.toMicrosRoundedUp(Duration.ofNanos(5_000_001))).isEqualTo(5001);
	}

	@Test
	void scheduleAtUsesTheGivenInstant() {
		Instant dueAt = Instant.ofEpochMilli(4_102_444_800_123L);
		String id = this.queue.scheduleAt("orders", "x", dueAt);
		assertThat(RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get(id)).isEqualTo("4102444800123");
	}

	@Test
	void aDueTimeBefore1970IsDueAtOnceAndItsLeaseWorks() {
		String id = this.queue.scheduleAt("orders", "x", Instant.ofEpochMilli(-1000));
		ClaimedMessage claimed = this.store.leases().claim("orders", 1, 30_000, 5).messages().get(0);
		assertThat(claimed.id()).isEqualTo(id);
		assertThat(claimed.dueAt()).isEqualTo(Instant.EPOCH);
		assertThat(this.store.leases().extend("orders", List.of(claimed.lease()), 30_000)).containsExactly(claimed.id());
		assertThat(this.store.leases().ack("orders", List.of(claimed.lease()))).isEqualTo(1);
	}

	@Test
	void schedulingAnExistingIdChangesNothing() {
		assertThat(this.queue.schedule("orders", "order-42", "first", Duration.ofMinutes(1))).isTrue();
		String score = RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get("order-42");
		assertThat(this.queue.schedule("orders", "order-42", "second", Duration.ofMinutes(9))).isFalse();
		assertThat(RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get("order-42")).isEqualTo(score);
		List<DeadLetter> none = this.admin.deadLetters("orders", 0, 10);
		assertThat(none).isEmpty();
		assertThat(claimNow("orders", "order-42").payload()).isEqualTo("\"first\"".getBytes());
	}

	@Test
	void theSameIdInAnotherTopicIsAnotherMessage() {
		assertThat(this.queue.schedule("a", "same", "x", Duration.ofMinutes(1))).isTrue();
		assertThat(this.queue.schedule("b", "same", "x", Duration.ofMinutes(1))).isTrue();
	}

	@Test
	void cancelRemovesAWaitingMessageAndFreesItsId() {
		this.queue.schedule("orders", "order-1", "x", Duration.ofMinutes(1));
		assertThat(this.queue.cancel("orders", "order-1")).isTrue();
		assertThat(this.queue.cancel("orders", "order-1")).isFalse();
		assertThat(this.admin.stats("orders").pending()).isZero();
		assertThat(redis.get().call("EXISTS", "dqtest:{orders}:body:0")).isEqualTo("0");
		assertThat(this.queue.schedule("orders", "order-1", "again", Duration.ofMinutes(1))).isTrue();
	}

	@Test
	void cancelOfAnUnknownIdIsFalse() {
		assertThat(this.queue.cancel("orders", "nope")).isFalse();
	}

	@Test
	void rescheduleMovesAWaitingMessage() {
		this.queue.schedule("orders", "order-1", "x", Duration.ofMinutes(1));
		long before = redisMillis();
		assertThat(this.queue.reschedule("orders", "order-1", Duration.ofHours(2))).isTrue();
		long due = (long) Double.parseDouble(RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get("order-1"));
		assertThat(due).isGreaterThanOrEqualTo(before + 7_200_000);
		assertThat(this.queue.reschedule("orders", "missing", Duration.ofHours(2))).isFalse();
		assertThat(RedisFixture.waiting(redis.get(), "dqtest:{orders}:pending").get("missing")).isNull();
	}

	@Test
	void statsCountReadyAndWaitingSeparately() {
		this.queue.schedule("orders", "x", Duration.ZERO);
		this.queue.scheduleAt("orders", "x", Instant.now().minusSeconds(60));
		this.queue.schedule("orders", "x", Duration.ofHours(1));
		TopicStats stats = this.admin.stats("orders");
		assertThat(stats.ready()).isEqualTo(2);
		assertThat(stats.waiting()).isEqualTo(1);
		assertThat(stats.pending()).isEqualTo(3);
	}

	@Test
	void statsCountMessagesThatFailedAndAreNotDeadAsRetrying() {
		for (String id : List.of("r-1", "r-2", "r-3")) {
			this.queue.schedule("flaky", id, "x", Duration.ZERO);
		}
		Map<String, ClaimedMessage> claimed = new HashMap<>();
		this.store.leases().claim("flaky", 10, 30_000, 5).messages().forEach((m) -> claimed.put(m.id(), m));
		assertThat(this.admin.stats("flaky").retrying()).isZero();
		this.store.leases().retry("flaky", claimed.get("r-1").lease(), 0, "java.lang.IllegalStateException: once");
		this.store.leases().retry("flaky", claimed.get("r-2").lease(), 3_600_000, "java.lang.IllegalStateException: again");
		this.store.leases().bury("flaky", claimed.get("r-3").lease(), "java.lang.IllegalStateException: never");
		TopicStats stats = this.admin.stats("flaky");
		assertThat(stats.retrying()).as("r-1 ready for a retry, r-2 waiting for one").isEqualTo(2);
		assertThat(stats.dead()).isEqualTo(1);
		assertThat(stats.ready() + stats.waiting()).isEqualTo(2);

		// r-1 runs again: still retrying while in flight, no longer once delivered
		Claim again = this.store.leases().claim("flaky", 10, 30_000, 5);
		assertThat(again.messages()).extracting(ClaimedMessage::id).containsExactly("r-1");
		assertThat(this.admin.stats("flaky").retrying()).isEqualTo(2);
		this.store.leases().ack("flaky", List.of(again.messages().get(0).lease()));
		assertThat(this.admin.stats("flaky").retrying()).isEqualTo(1);
		assertThat(this.admin.replayDeadLetter("flaky", "r-3")).isTrue();
		assertThat(this.admin.stats("flaky").retrying()).as("a replayed dead letter starts afresh").isEqualTo(1);
	}

	@Test
	void scheduleAllWritesEveryMessageAcrossTopicsAndChunks() {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2500; i++) {
			requests.add(ScheduleRequest.builder((i % 2 == 0) ? "even" : "odd", i)
				.id("m-" + i)
				.delay(Duration.ofMinutes(1))
				.build());
		}
		requests.add(ScheduleRequest.builder("even", "dup").id("m-0").build());
		List<ScheduleResult> results = this.queue.scheduleAll(requests);
		assertThat(results).hasSize(2501);
		assertThat(results.get(7)).isEqualTo(new ScheduleResult("m-7", true));
		assertThat(results.get(2500)).isEqualTo(new ScheduleResult("m-0", false));
		assertThat(this.admin.stats("even").waiting()).isEqualTo(1250);
		assertThat(this.admin.stats("odd").waiting()).isEqualTo(1250);
	}

	@Test
	void headersAndCreationTimeAreStored() {
		Instant before = Instant.now();
		this.queue.schedule(ScheduleRequest.builder("orders", Map.of("k", 1))
			.id("h-1")
			.header("tenant", "acme")
			.header("trace", "abc")
			.delay(Duration.ofMinutes(1))
			.build());
		StoredMessage envelope = claimNow("orders", "h-1");
		assertThat(envelope.headers()).containsExactly(Map.entry("tenant", "acme"), Map.entry("trace", "abc"));
		assertThat(envelope.createdAt()).isBetween(before.minusMillis(1), Instant.now());
		assertThat(new String(envelope.payload())).isEqualTo("{\"k\":1}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "has space", "has{brace}", "a/b", "tab\t" })
	void invalidTopicsAreRejectedAndNothingIsWritten(String topic) {
		assertThatThrownBy(() -> this.queue.schedule(topic, "x", Duration.ZERO))
			.isInstanceOf(InvalidTopicException.class);
		assertThatThrownBy(() -> this.queue.cancel(topic, "id")).isInstanceOf(InvalidTopicException.class);
		assertThatThrownBy(() -> this.queue.reschedule(topic, "id", Duration.ZERO))
			.isInstanceOf(InvalidTopicException.class);
		assertThatThrownBy(() -> this.admin.stats(topic)).isInstanceOf(InvalidTopicException.class);
		assertNothingWritten();
	}

	@Test
	void nullAndOverlongTopicsAreRejected() {
		assertThatThrownBy(() -> this.queue.schedule(null, "x", Duration.ZERO))
			.isInstanceOf(InvalidTopicException.class)
			.hasMessageContaining("null");
		assertThatThrownBy(() -> this.queue.schedule("t".repeat(201), "x", Duration.ZERO))
			.isInstanceOf(InvalidTopicException.class)
			.hasMessageContaining("200");
		assertThat(this.queue.schedule("t".repeat(200), "x", Duration.ZERO)).isNotNull();
	}

	@Test
	void negativeNullAndUnrepresentableDelaysAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule("t", "x", Duration.ofMillis(-1)))
			.withMessageContaining("negative");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule("t", "x", null))
			.withMessageContaining("null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("t", "x", Duration.ofDays(36_501)))
			.withMessageContaining("cannot be represented");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.reschedule("t", "id", Duration.ofSeconds(-5)))
			.withMessageContaining("negative");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.scheduleAt("t", "x", null));
		assertNothingWritten();
	}

	@Test
	void nullPayloadIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule("t", null, Duration.ZERO))
			.withMessageContaining("Payload must not be null");
		assertNothingWritten();
	}

	@Test
	void payloadOverTheLimitIsRejected() {
		RedisDelayedQueue small = new RedisDelayedQueue(this.store, PayloadConverter.json(),
				DataSize.ofBytes(100));
		assertThatThrownBy(() -> small.schedule("t", "x".repeat(200), Duration.ZERO))
			.isInstanceOf(PayloadTooLargeException.class)
			.hasMessageContaining("202 bytes")
			.hasMessageContaining("100 bytes");
		assertThat(small.schedule("t", "x".repeat(98), Duration.ZERO)).isNotNull();
		assertThat(this.admin.stats("t").pending()).isEqualTo(1);
	}

	@Test
	void defaultLimitIsOneMebibyte() {
		assertThatThrownBy(() -> this.queue.schedule("t", "x".repeat(1_048_575), Duration.ZERO))
			.isInstanceOf(PayloadTooLargeException.class);
		assertNothingWritten();
	}

	@Test
	void unserialisablePayloadIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("t", new FailingGetter(), Duration.ZERO))
			.withMessageContaining("cannot be serialised");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("t", new SelfReferencing(), Duration.ZERO))
			.withMessageContaining("cannot be serialised");
		assertNothingWritten();
	}

	@Test
	void invalidIdsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule("t", "", "x", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule("t", "a b", "x", Duration.ZERO));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.schedule("t", "i".repeat(201), "x", Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.cancel("t", null));
		assertNothingWritten();
	}

	@Test
	void oneBadRequestInABatchWritesNothing() {
		List<ScheduleRequest> requests = List.of(ScheduleRequest.builder("t", "ok").build(),
				ScheduleRequest.builder("t", new FailingGetter()).build());
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.scheduleAll(requests));
		assertNothingWritten();
	}

	@Test
	void deadLettersCanBeListedReplayedAndPurged() {
		for (int i = 0; i < 3; i++) {
			this.queue.schedule("t", "d-" + i, "payload-" + i, Duration.ZERO);
		}
		Claim claim = this.store.leases().claim("t", 10, 30_000, 5);
		assertThat(claim.messages()).hasSize(3);
		for (ClaimedMessage message : claim.messages()) {
			assertThat(this.store.leases().bury("t", message.lease(), "java.lang.IllegalStateException: boom")).isTrue();
		}
		assertThat(this.admin.stats("t").dead()).isEqualTo(3);
		List<DeadLetter> letters = this.admin.deadLetters("t", 0, 10);
		assertThat(letters).extracting(DeadLetter::id).containsExactlyInAnyOrder("d-0", "d-1", "d-2");
		DeadLetter first = letters.stream().filter((l) -> l.id().equals("d-0")).findFirst().orElseThrow();
		assertThat(first.error()).isEqualTo("java.lang.IllegalStateException: boom");
		assertThat(first.attempts()).isEqualTo(1);
		assertThat(first.payloadAsString()).isEqualTo("\"payload-0\"");
		assertThat(this.admin.deadLetters("t", 1, 1)).hasSize(1);

		assertThat(this.queue.schedule("t", "d-0", "again", Duration.ZERO)).as("a dead id still exists").isFalse();
		assertThat(this.admin.replayDeadLetter("t", "d-0")).isTrue();
		assertThat(this.admin.replayDeadLetter("t", "d-0")).isFalse();
		assertThat(this.admin.stats("t")).usingRecursiveComparison()
			.ignoringFields("nextDueAt")
			.isEqualTo(new TopicStats("t", 0, 1, 0, 2, null));
		assertThat(this.admin.purgeDeadLetter("t", "d-1")).isTrue();
		assertThat(this.admin.purgeDeadLetters("t")).isEqualTo(1);
		assertThat(this.admin.stats("t").dead()).isZero();
		assertThat(redis.get().call("HLEN", "dqtest:{t}:body:0")).isEqualTo("1");
		assertThat(this.admin.replayDeadLetters("t")).isZero();
	}

	@Test
	void deadLettersAreBoundedByCount() {
		RedisMessageStore bounded = new RedisMessageStore(this.fixture.connectionFactory(), RedisFixture.PREFIX,
				new DeadLetterPolicy(2, Duration.ofDays(1)));
		for (int i = 0; i < 5; i++) {
			this.queue.schedule("t", "d-" + i, "p", Duration.ZERO);
		}
		for (ClaimedMessage message : bounded.leases().claim("t", 10, 30_000, 5).messages()) {
			bounded.leases().bury("t", message.lease(), "boom");
		}
		assertThat(this.admin.stats("t").dead()).isEqualTo(2);
		assertThat(redis.get().call("HLEN", "dqtest:{t}:body:0")).isEqualTo("2");
		assertThat(redis.get().call("HLEN", "dqtest:{t}:error")).isEqualTo("2");
	}

	@Test
	void scheduleAllOfAThousandIsStoredInScriptCallsOfAtMost100SoThatNoneHoldsRedisLong() {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 1_000; i++) {
			requests.add(ScheduleRequest.builder("bulk", "p").id("b-" + i).delay(Duration.ofMinutes(1)).build());
		}
		// the scripts loaded and the topic known: what follows is the schedule's own calls
		this.queue.schedule("bulk", "first", "p", Duration.ofMinutes(1));
		long before = scriptCalls();

		List<ScheduleResult> results = this.queue.scheduleAll(requests);

		assertThat(results).hasSize(1_000).allMatch(ScheduleResult::scheduled);
		assertThat(scriptCalls() - before).as("script calls for 1,000 messages of one partition")
			.isEqualTo(1_000 / RedisMessageStore.SCHEDULE_CHUNK_SIZE);
		assertThat(this.admin.stats("bulk").waiting()).isEqualTo(1_001);
	}

	/** The script calls Redis ran so far (INFO commandstats: FCALL, EVALSHA and EVAL, less those that failed). */
	private static long scriptCalls() {
		return Arrays.stream(redis.get().call("INFO", "commandstats").split("\r?\n"))
			.filter((line) -> line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
			.mapToLong((line) -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))
					- Long.parseLong(line.replaceAll(".*failed_calls=(\\d+).*", "$1")))
			.sum();
	}

	@Test
	void scheduleAllThatFailsPartWaySaysExactlyWhatWasStored() {
		// the second topic's key has the wrong type, so its script fails
		redis.get().call("SET", "dqtest:{broken}:pending", "not a sorted set");
		this.queue.schedule("ok", "exists", "x", Duration.ofMinutes(1));
		List<ScheduleRequest> requests = List.of(
				ScheduleRequest.builder("ok", "a").id("new").delay(Duration.ofMinutes(1)).build(),
				ScheduleRequest.builder("ok", "b").id("exists").delay(Duration.ofMinutes(1)).build(),
				ScheduleRequest.builder("broken", "c").delay(Duration.ofMinutes(1)).build(),
				ScheduleRequest.builder("later", "d").id("never").delay(Duration.ofMinutes(1)).build());
		assertThatThrownBy(() -> this.queue.scheduleAll(requests)).isInstanceOfSatisfying(
				PartialScheduleException.class, (ex) -> {
					assertThat(ex.getEntries()).extracting(PartialScheduleException.Entry::outcome)
						.containsExactly(PartialScheduleException.Outcome.STORED,
								PartialScheduleException.Outcome.EXISTED, PartialScheduleException.Outcome.UNKNOWN,
								PartialScheduleException.Outcome.NOT_SENT);
					assertThat(ex.getMessage()).contains("1 stored, 1 existed, 1 unknown, 1 not sent");
					List<ScheduleRequest> unfinished = ex.getUnfinished();
					assertThat(unfinished).extracting(ScheduleRequest::topic).containsExactly("broken", "later");
					assertThat(unfinished.get(0).id()).as("a generated id is kept for the retry").isNotNull();
					assertThat(unfinished.get(1).id()).isEqualTo("never");
				});
		assertThat(this.admin.stats("ok").pending()).isEqualTo(2);
		assertThat(RedisFixture.keysOf(redis.get(), "later")).isEmpty();
	}

	@Test
	void deadLetterPageLimitsAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.deadLetters("t", -1, 10));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.deadLetters("t", 0, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.deadLetters("t", 0, 1001));
	}

	private void assertNothingWritten() {
		assertThat(redis.get().call("DBSIZE")).isEqualTo("0");
	}

	/** Makes a waiting message due and claims it, to read what is stored for it. */
	private StoredMessage claimNow(String topic, String id) {
		assertThat(this.queue.reschedule(topic, id, Duration.ZERO)).isTrue();
		return this.store.leases().claim(topic, 1, 30_000, 5)
			.messages()
			.stream()
			.filter((message) -> message.id().equals(id))
			.findFirst()
			.orElseThrow()
			.message();
	}

	private long redisMillis() {
		String[] time = redis.get().call("TIME").split("\n");
		return Long.parseLong(time[0]) * 1000 + Long.parseLong(time[1]) / 1000;
	}

	record Order(String id, int amount) {
	}

	static class FailingGetter {

		public String getValue() {
			throw new IllegalStateException("cannot read");
		}

	}

	static class SelfReferencing {

		public SelfReferencing getSelf() {
			return this;
		}

	}

}
