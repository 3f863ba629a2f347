package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Replaying and purging every dead letter of a topic goes a chunk at a time (bounded work per script call), and stays
 * exact with more dead letters than a chunk, across partitions, beside a second purge and beside consumers that
 * bury the replayed messages again at once: nothing lost, nothing done twice, and the call ends.
 */
class ChunkedDeadLetterTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	/** Ten and a half chunks of a replay or purge, two and a half of a schedule call. */
	private static final int DEAD = 2 * RedisMessageStore.CHUNK_SIZE + RedisMessageStore.CHUNK_SIZE / 2;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.queue = redis.fixture().queue(redis.store());
		this.admin = redis.fixture().admin(redis.store());
	}

	@Test
	void purgingMoreThanAChunkAcrossPartitionsDeletesEachDeadLetterOnceAndLeavesNothingBehind() {
		partition("purged", 2);
		bury("purged", DEAD);
		this.queue.schedule(ScheduleRequest.builder("purged", "stays").id("waiting").delay(Duration.ofHours(1)).build());

		// two purges at once: each dead letter is deleted by one of them
		CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> this.admin.purgeDeadLetters("purged"));
		long purged = this.admin.purgeDeadLetters("purged") + other.join();

		assertThat(purged).isEqualTo(DEAD);
		TopicStats stats = this.admin.stats("purged");
		assertThat(stats.dead()).isZero();
		assertThat(stats.waiting()).isEqualTo(1);
		assertThat(this.admin.lookup("purged", "d-0")).isEmpty();
		assertThat(this.admin.lookup("purged", "waiting")).isPresent();
		// what is left in Redis is the waiting message: its envelope, and nothing of the dead letters
		for (String partition : List.of("purged", "purged#1")) {
			for (String key : RedisFixture.keysOf(redis.get(), partition)) {
				assertThat(key).doesNotEndWith(":buried").doesNotEndWith(":error").doesNotEndWith(":tries");
			}
		}
		assertThat(this.admin.purgeDeadLetters("purged")).isZero();
	}

	@Test
	void replayingMoreThanAChunkWhileConsumersBuryThemAgainReplaysEachOnceAndEnds() throws Exception {
		bury("replayed", DEAD);
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong reburied = new AtomicLong();
		// a consumer whose handler fails every message at once: what is replayed dies again while the replay runs
		CompletableFuture<Void> consumer = CompletableFuture.runAsync(() -> {
			while (running.get()) {
				for (ClaimedMessage message : redis.store().leases().claim("replayed", 200, 60_000, 1).messages()) {
					redis.store().leases().bury("replayed", message.lease(), "failed again");
					reburied.incrementAndGet();
				}
			}
		});
		try {
			long replayed = this.admin.replayDeadLetters("replayed");
			// each one that was dead when the replay began, once; one that died again after it began is left dead
			// (death times are kept to the millisecond: one that died again within the replay's first millisecond may
			// be replayed a second time, no more)
			assertThat(replayed).isBetween((long) DEAD, DEAD + 200L);
		}
		finally {
			running.set(false);
			consumer.get();
		}
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			for (ClaimedMessage message : redis.store().leases().claim("replayed", 1000, 60_000, 1).messages()) {
				redis.store().leases().bury("replayed", message.lease(), "failed again");
			}
			TopicStats stats = this.admin.stats("replayed");
			assertThat(stats.dead()).isEqualTo(DEAD);
			assertThat(stats.pending() + stats.inflight()).isZero();
		});
		assertThat(reburied.get()).isPositive();
		// and a second replay takes them all again
		assertThat(this.admin.replayDeadLetters("replayed")).isEqualTo(DEAD);
		assertThat(this.admin.stats("replayed").pending()).isEqualTo(DEAD);
	}

	@Test
	void replayingMoreThanAChunkAcrossPartitionsMakesEachDueOnceWithItsAttemptsReset() {
		partition("again", 3);
		bury("again", DEAD);
		CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> this.admin.replayDeadLetters("again"));
		long replayed = this.admin.replayDeadLetters("again") + other.join();

		assertThat(replayed).isEqualTo(DEAD);
		TopicStats stats = this.admin.stats("again");
		assertThat(stats.dead()).isZero();
		assertThat(stats.pending()).isEqualTo(DEAD);
		assertThat(stats.retrying()).isZero();
		assertThat(this.admin.lookup("again", "d-7").orElseThrow().attempts()).isZero();
	}

	private void partition(String topic, int partitions) {
		TopicPartitioning partitioning = new TopicPartitioning(Map.of(topic, partitions));
		this.queue.setPartitioning(partitioning);
		this.admin.setPartitioning(partitioning);
	}

	/** Schedules {@code count} messages due now and buries each, as a handler that failed its last attempt would. */
	private void bury(String topic, int count) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, i).id("d-" + i).build());
		}
		for (int from = 0; from < count; from += 500) {
			this.queue.scheduleAll(requests.subList(from, Math.min(count, from + 500)));
		}
		int partitions = this.admin.partitions(topic);
		for (int p = 0; p < partitions; p++) {
			String partition = TopicKeys.partitionName(topic, p);
			List<ClaimedMessage> claimed;
			while (!(claimed = redis.store().leases().claim(partition, 500, 60_000, 5).messages()).isEmpty()) {
				for (ClaimedMessage message : claimed) {
					redis.store().leases().bury(partition, message.lease(), "java.lang.IllegalStateException: boom");
				}
			}
		}
		assertThat(this.admin.stats(topic).dead()).isEqualTo(count);
	}

}
