package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.InvalidTopicException;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessException;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The reactive queue against a real Redis, outside transactions. */
class ReactiveDelayedQueueTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private ReactiveDelayedQueue reactive;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = new RedisDelayedQueue(store, this.fixture.converter(), DataSize.ofKilobytes(1));
		this.reactive = new RedisReactiveDelayedQueue(this.queue);
		this.admin = this.fixture.admin(store);
	}

	@AfterEach
	void tearDown() {
		if (!redis.get().isRunning()) {
			redis.get().start();
		}
		this.fixture.close();
	}

	@Test
	void nothingHappensUntilSubscribedAndEachSubscriptionSchedulesAgain() {
		Mono<String> schedule = this.reactive.schedule("orders", "o-1", Duration.ofMinutes(5));
		assertThat(redis.get().call("KEYS", "dqtest:*")).as("not subscribed yet").isEmpty();

		String first = schedule.block(TIMEOUT);
		String second = schedule.block(TIMEOUT);

		assertThat(first).isNotEqualTo(second);
		assertThat(this.queue.lookup("orders", first)).isPresent();
		assertThat(this.queue.lookup("orders", second)).isPresent();
	}

	@Test
	void everyOperation() {
		Instant at = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
		String atId = this.reactive.scheduleAt("orders", "at", at).block(TIMEOUT);
		assertThat(this.queue.lookup("orders", atId).orElseThrow().dueAt()).isEqualTo(at);

		assertThat(this.reactive.schedule("orders", "o-2", "x", Duration.ofMinutes(5)).block(TIMEOUT)).isTrue();
		assertThat(this.reactive.schedule("orders", "o-2", "y", Duration.ofMinutes(5)).block(TIMEOUT)).isFalse();

		ScheduleResult result = this.reactive
			.schedule(ScheduleRequest.builder("orders", "r").id("o-3").header("h", "v").build())
			.block(TIMEOUT);
		assertThat(result.scheduled()).isTrue();

		List<ScheduleResult> all = this.reactive.scheduleAll(List.of(
				ScheduleRequest.builder("orders", "a").id("o-4").delay(Duration.ofMinutes(5)).build(),
				ScheduleRequest.builder("orders", "b").id("o-2").delay(Duration.ofMinutes(5)).build()))
			.collectList()
			.block(TIMEOUT);
		assertThat(all).extracting(ScheduleResult::scheduled).containsExactly(true, false);

		assertThat(this.reactive.reschedule("orders", "o-4", Duration.ofHours(3)).block(TIMEOUT)).isTrue();
		assertThat(this.queue.lookup("orders", "o-4").orElseThrow().dueAt())
			.isAfter(this.fixture.redisTime().plus(Duration.ofMinutes(179)));
		assertThat(this.reactive.cancel("orders", "o-4").block(TIMEOUT)).isTrue();
		assertThat(this.reactive.cancel("orders", "o-4").block(TIMEOUT)).isFalse();

		assertThat(this.reactive.cancelAfterCommit("orders", "o-3").block(TIMEOUT).toCompletableFuture().join())
			.isTrue();
		assertThat(this.reactive.rescheduleAfterCommit("orders", "o-2", Duration.ofMinutes(1)).block(TIMEOUT)
			.toCompletableFuture()
			.join()).isTrue();

		ScheduleRequest debounce = ScheduleRequest.builder("orders", "v1").id("d").delay(Duration.ofMinutes(5)).build();
		assertThat(this.reactive.scheduleOrReplace(debounce).block(TIMEOUT)).isEqualTo(ReplaceResult.SCHEDULED);
		assertThat(this.reactive.scheduleOrReplaceAfterCommit(debounce).block(TIMEOUT).toCompletableFuture().join())
			.isEqualTo(ReplaceResult.REPLACED);

		MessageInfo found = this.reactive.lookup("orders", "d").block(TIMEOUT);
		assertThat(found.payload(String.class)).isEqualTo("v1");
		assertThat(this.reactive.lookup("orders", "none").blockOptional(TIMEOUT)).isEmpty();
	}

	@Test
	void badInputIsAnErrorSignalAndWritesNothing() {
		assertThatExceptionOfType(InvalidTopicException.class)
			.isThrownBy(() -> this.reactive.schedule("bad topic", "x", Duration.ofMinutes(1)).block(TIMEOUT));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.reactive.schedule("orders", "x", Duration.ofMinutes(-1)).block(TIMEOUT));
		assertThatExceptionOfType(PayloadTooLargeException.class)
			.isThrownBy(() -> this.reactive.schedule("orders", "x".repeat(2_000), Duration.ofMinutes(1)).block(TIMEOUT));
		assertThatIllegalArgumentException().isThrownBy(() -> this.reactive.scheduleAll(List.of(
				ScheduleRequest.builder("orders", "fine").id("fine").build(),
				ScheduleRequest.builder("orders", "x".repeat(2_000)).build())).blockLast(TIMEOUT));
		assertThatIllegalArgumentException().isThrownBy(() -> this.reactive.cancel("orders", "bad id").block(TIMEOUT));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.reactive.scheduleOrReplace(ScheduleRequest.builder("orders", "x").build())
				.block(TIMEOUT));

		// the error is a signal: a publisher, not a throw at assembly, so onErrorResume sees it
		AtomicInteger resumed = new AtomicInteger();
		String fallback = this.reactive.schedule("bad topic", "x", Duration.ofMinutes(1))
			.onErrorResume(IllegalArgumentException.class, (ex) -> {
				resumed.incrementAndGet();
				return Mono.just("fallback");
			})
			.block(TIMEOUT);
		assertThat(fallback).isEqualTo("fallback");
		assertThat(resumed).hasValue(1);
		assertThat(redis.get().call("KEYS", "dqtest:*")).as("nothing was written").isEmpty();
	}

	@Test
	void manyConcurrentSubscriptionsAreAllStored() {
		List<String> ids = Flux.range(0, 300)
			.flatMap((i) -> this.reactive.schedule("burst", i, Duration.ofMinutes(5)), 256)
			.collectList()
			.block(TIMEOUT);

		assertThat(ids).hasSize(300).doesNotHaveDuplicates();
		assertThat(this.admin.stats("burst").waiting()).isEqualTo(300);
	}

	@Test
	void whenRedisIsDownTheMonoSignalsTheFailure() {
		redis.get().stop();

		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.reactive.schedule("orders", "x", Duration.ofMinutes(1)).block(TIMEOUT));
	}

}
