package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.InvalidTopicException;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The asynchronous view of the queue against a real Redis: every operation, bad input, group commit from one
 * thread, and what a completed or failed future means.
 */
class AsyncDelayedQueueTests {

	private static final long TIMEOUT_SECONDS = 10;

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private AsyncDelayedQueue async;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = new RedisDelayedQueue(store, this.fixture.converter(), DataSize.ofKilobytes(1));
		this.async = this.queue.async();
		this.admin = this.fixture.admin(store);
	}

	@AfterEach
	void tearDown() {
		if (!redis.get().isRunning()) {
			redis.get().start();
		}
		this.fixture.close();
	}

	private static <T> T done(CompletableFuture<T> future) throws Exception {
		return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
	}

	@Test
	void aScheduleWhoseContinuationRegistersItsTopicOnTheIoThreadCompletes() throws Exception {
		// the continuation of the script call registers the new topic on the client's I/O thread: done on the shared
		// native connection, it opens no connection there (a connect that Lettuce assigns to the event loop it waits
		// on never completes: with two event loops, the third connection of a factory after the shared one)
		LettuceConnectionFactory factory = this.fixture.connectionFactory();
		RedisDelayedQueue blocking = new RedisDelayedQueue(this.fixture.store(factory), this.fixture.converter());
		blocking.schedule("opened", "o", "x", Duration.ofMinutes(5));
		RedisConnection subscriber = factory.getConnection();
		try {
			subscriber.subscribe((message, pattern) -> {
			}, "dqtest:nothing".getBytes(java.nio.charset.StandardCharsets.UTF_8));
			assertThat(blocking.async()
				.scheduleAll(List.of(ScheduleRequest.builder("fresh", "x").delay(Duration.ofMinutes(5)).build()))
				.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).singleElement()
				.satisfies((result) -> assertThat(result.scheduled()).isTrue());
		}
		finally {
			subscriber.close();
		}
		assertThat(this.admin.knownTopics()).contains("fresh");
	}

	@Test
	void asyncIsOneViewPerQueue() {
		assertThat(this.queue.async()).isSameAs(this.async);
	}

	@Test
	void scheduleWithAGeneratedIdIsStoredOnceTheFutureCompletes() throws Exception {
		String id = done(this.async.schedule("orders", "o-1", Duration.ofMinutes(5)));

		assertThat(id).hasSize(22);
		MessageInfo info = this.queue.lookup("orders", id).orElseThrow();
		assertThat(info.state()).isEqualTo(MessageState.WAITING);
		assertThat(info.payload(String.class)).isEqualTo("o-1");
		assertThat(info.dueAt()).isAfter(this.fixture.redisTime().plus(Duration.ofMinutes(4)));
	}

	@Test
	void scheduleAtStoresTheInstant() throws Exception {
		Instant at = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		String id = done(this.async.scheduleAt("orders", "o-2", at));

		assertThat(this.queue.lookup("orders", id).orElseThrow().dueAt()).isEqualTo(at);
	}

	@Test
	void scheduleWithAnIdStoresItOnceAndThenKeepsTheFirst() throws Exception {
		assertThat(done(this.async.schedule("orders", "order-42", "first", Duration.ofMinutes(5)))).isTrue();
		assertThat(done(this.async.schedule("orders", "order-42", "second", Duration.ofMinutes(1)))).isFalse();

		assertThat(this.queue.lookup("orders", "order-42").orElseThrow().payload(String.class)).isEqualTo("first");
	}

	@Test
	void scheduleARequestKeepsItsHeaders() throws Exception {
		ScheduleResult result = done(this.async.schedule(
				ScheduleRequest.builder("orders", "o-3").id("o-3").header("tenant", "t-1").delay(Duration.ofMinutes(1))
					.build()));

		assertThat(result.scheduled()).isTrue();
		assertThat(result.id()).isEqualTo("o-3");
		assertThat(this.queue.lookup("orders", "o-3").orElseThrow().headers()).containsEntry("tenant", "t-1");
	}

	@Test
	void scheduleAllStoresEveryRequestAcrossTopicsAndSaysWhichExisted() throws Exception {
		this.queue.schedule("orders", "a", "old", Duration.ofMinutes(5));
		List<ScheduleRequest> requests = List.of(
				ScheduleRequest.builder("orders", "new").id("a").delay(Duration.ofMinutes(5)).build(),
				ScheduleRequest.builder("orders", "b").id("b").delay(Duration.ofMinutes(5)).build(),
				ScheduleRequest.builder("invoices", "c").id("c").delay(Duration.ofMinutes(5)).build());

		List<ScheduleResult> results = done(this.async.scheduleAll(requests));

		assertThat(results).extracting(ScheduleResult::id).containsExactly("a", "b", "c");
		assertThat(results).extracting(ScheduleResult::scheduled).containsExactly(false, true, true);
		assertThat(this.admin.stats("orders").waiting()).isEqualTo(2);
		assertThat(this.admin.stats("invoices").waiting()).isEqualTo(1);
	}

	@Test
	void scheduleAllOfMoreThanOneChunkStoresThemAll() throws Exception {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2_500; i++) {
			requests.add(ScheduleRequest.builder("bulk", i).id("m-" + i).delay(Duration.ofMinutes(5)).build());
		}

		List<ScheduleResult> results = done(this.async.scheduleAll(requests));

		assertThat(results).allMatch(ScheduleResult::scheduled).hasSize(2_500);
		assertThat(this.admin.stats("bulk").waiting()).isEqualTo(2_500);
	}

	@Test
	void cancelRemovesAWaitingMessageOnce() throws Exception {
		this.queue.schedule("orders", "o-5", "x", Duration.ofMinutes(5));

		assertThat(done(this.async.cancel("orders", "o-5"))).isTrue();
		assertThat(done(this.async.cancel("orders", "o-5"))).isFalse();
		assertThat(this.queue.lookup("orders", "o-5")).isEmpty();
	}

	@Test
	void rescheduleMovesAWaitingMessage() throws Exception {
		this.queue.schedule("orders", "o-6", "x", Duration.ofMinutes(5));

		assertThat(done(this.async.reschedule("orders", "o-6", Duration.ofHours(2)))).isTrue();
		assertThat(done(this.async.reschedule("orders", "unknown", Duration.ofHours(2)))).isFalse();
		assertThat(this.queue.lookup("orders", "o-6").orElseThrow().dueAt())
			.isAfter(this.fixture.redisTime().plus(Duration.ofMinutes(119)));
	}

	@Test
	void afterCommitVariantsActAtOnceOutsideATransaction() throws Exception {
		this.queue.schedule("orders", "o-7", "x", Duration.ofMinutes(5));
		this.queue.schedule("orders", "o-8", "x", Duration.ofMinutes(5));

		assertThat(done(this.async.rescheduleAfterCommit("orders", "o-7", Duration.ofHours(1)))).isTrue();
		assertThat(done(this.async.cancelAfterCommit("orders", "o-8"))).isTrue();
		assertThat(this.queue.lookup("orders", "o-8")).isEmpty();
		assertThat(done(this.async.scheduleOrReplaceAfterCommit(
				ScheduleRequest.builder("orders", "y").id("o-7").delay(Duration.ofMinutes(1)).build())))
			.isEqualTo(ReplaceResult.REPLACED);
	}

	@Test
	void scheduleOrReplaceSchedulesThenReplaces() throws Exception {
		ScheduleRequest first = ScheduleRequest.builder("orders", "v1").id("debounce").delay(Duration.ofMinutes(5))
			.build();
		ScheduleRequest second = ScheduleRequest.builder("orders", "v2").id("debounce").delay(Duration.ofMinutes(9))
			.build();

		assertThat(done(this.async.scheduleOrReplace(first))).isEqualTo(ReplaceResult.SCHEDULED);
		assertThat(done(this.async.scheduleOrReplace(second))).isEqualTo(ReplaceResult.REPLACED);
		assertThat(this.queue.lookup("orders", "debounce").orElseThrow().payload(String.class)).isEqualTo("v2");
	}

	@Test
	void lookupFindsAMessageOrNothing() throws Exception {
		this.queue.schedule("orders", "o-9", "x", Duration.ofMinutes(5));

		Optional<MessageInfo> found = done(this.async.lookup("orders", "o-9"));
		assertThat(found).hasValueSatisfying((info) -> {
			assertThat(info.id()).isEqualTo("o-9");
			assertThat(info.state()).isEqualTo(MessageState.WAITING);
		});
		assertThat(done(this.async.lookup("orders", "nope"))).isEmpty();
	}

	@Test
	void badInputThrowsAtTheCallAndWritesNothing() {
		assertThatExceptionOfType(InvalidTopicException.class)
			.isThrownBy(() -> this.async.schedule("bad topic", "x", Duration.ofMinutes(1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.async.schedule("orders", "x", Duration.ofMinutes(-1)));
		assertThatExceptionOfType(PayloadTooLargeException.class)
			.isThrownBy(() -> this.async.schedule("orders", "x".repeat(2_000), Duration.ofMinutes(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.async.scheduleAll(List.of(
				ScheduleRequest.builder("orders", "fine").id("fine").build(),
				ScheduleRequest.builder("orders", "x".repeat(2_000)).build())));
		assertThatIllegalArgumentException().isThrownBy(() -> this.async.cancel("orders", "bad id with spaces"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.async.reschedule("orders", "o-1", Duration.ofSeconds(-1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.async.scheduleOrReplace(ScheduleRequest.builder("orders", "x").build()));
		assertThatIllegalArgumentException().isThrownBy(() -> this.async.lookup("orders", ""));

		assertThat(redis.get().call("KEYS", "dqtest:*")).as("nothing was written").isEmpty();
	}

	@Test
	void manySchedulesIssuedFromOneThreadWhileACallIsInFlightShareScriptCalls() throws Exception {
		int messages = 400;
		// the topic's partition count is checked once, before
		done(this.async.schedule("burst", "first", Duration.ofMinutes(5)));
		long before = scheduleCalls();
		// Redis holds every command for a second: the first call stays in flight while the others are issued, so the
		// test does not depend on how fast this thread is beside Redis
		redis.get().call("CLIENT", "PAUSE", "1000", "ALL");
		List<CompletableFuture<String>> futures = new ArrayList<>();
		for (int i = 0; i < messages; i++) {
			futures.add(this.async.schedule("burst", i, Duration.ofMinutes(5)));
		}
		List<String> ids = new ArrayList<>();
		for (CompletableFuture<String> future : futures) {
			ids.add(done(future));
		}
		long calls = scheduleCalls() - before;

		assertThat(ids).doesNotHaveDuplicates().hasSize(messages);
		assertThat(this.admin.stats("burst").waiting()).isEqualTo(messages + 1);
		// the one in flight, then the other 399 in calls of at most half a chunk (two calls in flight at most)
		int perCall = RedisMessageStore.SCHEDULE_CHUNK_SIZE / 2;
		assertThat(calls).as("script calls for %d messages issued from one thread", messages)
			.isLessThanOrEqualTo(1 + (messages - 1 + perCall - 1) / perCall);
	}

	/** The script calls Redis ran so far: FCALL, EVALSHA and EVAL (INFO commandstats). */
	private long scheduleCalls() {
		long calls = 0;
		for (String line : redis.get().call("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				String field = line.substring(line.indexOf("calls=") + "calls=".length());
				calls += Long.parseLong(field.substring(0, field.indexOf(',')));
			}
		}
		return calls;
	}

	@Test
	void everyCompletedFutureIsAMessageRedisHolds() throws Exception {
		List<CompletableFuture<String>> futures = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			futures.add(this.async.schedule("held", i, Duration.ofMinutes(5)));
		}
		for (CompletableFuture<String> future : futures) {
			String id = done(future);
			// read at once, on another connection, by the blocking queue
			assertThat(this.queue.lookup("held", id)).as(id).isPresent();
		}
	}

	@Test
	void schedulesAreCountedByTheQueuesMonitor() throws Exception {
		Map<String, Integer> scheduled = new java.util.concurrent.ConcurrentHashMap<>();
		Map<String, Integer> cancelled = new java.util.concurrent.ConcurrentHashMap<>();
		this.queue.setMonitor(new DelayQueueMonitor() {
			@Override
			public void scheduled(String topic, int count) {
				scheduled.merge(topic, count, Integer::sum);
			}

			@Override
			public void cancelled(String topic) {
				cancelled.merge(topic, 1, Integer::sum);
			}
		});
		List<CompletableFuture<String>> futures = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			futures.add(this.async.schedule("counted", i, Duration.ofMinutes(5)));
		}
		for (CompletableFuture<String> future : futures) {
			done(future);
		}
		done(this.async.cancel("counted", futures.get(0).get()));

		assertThat(scheduled).containsEntry("counted", 50);
		assertThat(cancelled).containsEntry("counted", 1);
	}

	@Test
	void theScheduleObservationCarriesTheTraceIntoTheMessageAndEndsWithTheWrite() throws Exception {
		List<String> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
			@Override
			public void onStart(Observation.Context context) {
				if (context instanceof DelayedMessageSenderContext sender) {
					sender.getSetter().set(sender.getCarrier(), "traceparent", "trace-of-" + sender.getMessageId());
				}
			}

			@Override
			public void onStop(Observation.Context context) {
				if (context instanceof DelayedMessageSenderContext sender) {
					stopped.add(sender.getMessageId());
				}
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}
		});
		this.queue.setObservationRegistry(observations);

		String id = done(this.async.schedule("traced", "x", Duration.ofMinutes(5)));

		assertThat(this.queue.lookup("traced", id).orElseThrow().headers()).containsEntry("traceparent",
				"trace-of-" + id);
		assertThat(stopped).containsExactly(id);
	}

	@Test
	void whenRedisIsDownTheFutureFailsAndNothingPretends() {
		redis.get().stop();

		CompletableFuture<String> future = this.async.schedule("orders", "lost?", Duration.ofMinutes(5));

		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS))
			.withCauseInstanceOf(DataAccessException.class);
	}

	@Test
	void insideATransactionTheMethodsWhoseResultComesAfterTheCommitRefuse() {
		org.springframework.transaction.support.TransactionSynchronizationManager.initSynchronization();
		org.springframework.transaction.support.TransactionSynchronizationManager.setActualTransactionActive(true);
		try {
			assertThatIllegalStateException().isThrownBy(() -> this.async.cancel("orders", "o-1"));
			assertThatIllegalStateException()
				.isThrownBy(() -> this.async.schedule("orders", "o-1", "x", Duration.ofMinutes(1)));
		}
		finally {
			org.springframework.transaction.support.TransactionSynchronizationManager.setActualTransactionActive(false);
			org.springframework.transaction.support.TransactionSynchronizationManager.clearSynchronization();
		}
		assertThat(redis.get().call("KEYS", "dqtest:*")).isEmpty();
	}

}
