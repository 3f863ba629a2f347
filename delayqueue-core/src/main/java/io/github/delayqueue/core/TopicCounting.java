package io.github.delayqueue.core;

import java.math.BigInteger;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.DueCounts;
import io.github.delayqueue.redis.internal.TopicCounts;

import org.springframework.util.Assert;

/**
 * Counts of a topic's messages, summed over its partitions (the admin's {@code stats} and {@code countDue}): how many
 * wait, are ready, leased, retrying and dead, and how many fall due in each of equal windows of time.
 */
final class TopicCounting {

	private final RedisMessageStore store;

	private final PartitionRouter router;

	TopicCounting(RedisMessageStore store, PartitionRouter router) {
		this.store = store;
		this.router = router;
	}

	TopicStats stats(String topic) {
		Topics.validateTopicOrSubscription(topic);
		long waiting = 0;
		long ready = 0;
		long leased = 0;
		long dead = 0;
		long retrying = 0;
		Instant nextDueAt = null;
		for (String partition : this.router.partitionNames(topic)) {
			TopicCounts counts = this.store.messages().stats(partition);
			waiting += counts.waiting();
			ready += counts.ready();
			leased += counts.leased();
			dead += counts.dead();
			retrying += counts.retrying();
			Instant next = counts.nextDueAt();
			if (next != null && (nextDueAt == null || next.isBefore(nextDueAt))) {
				nextDueAt = next;
			}
		}
		return new TopicStats(topic, waiting, ready, leased, retrying, dead, nextDueAt);
	}

	DueHistogram countDue(String topic, Instant from, Instant to, int windows) {
		Topics.validateTopicOrSubscription(topic);
		Assert.notNull(from, "From must not be null");
		Assert.notNull(to, "To must not be null");
		Assert.isTrue(windows >= 1 && windows <= DueHistogram.MAX_WINDOWS,
				() -> "Windows must be between 1 and " + DueHistogram.MAX_WINDOWS + ", but was " + windows);
		long start = ChronoUnit.MICROS.between(Instant.EPOCH, from);
		long end = ChronoUnit.MICROS.between(Instant.EPOCH, to);
		Assert.isTrue(end - start >= windows, () -> "The span from " + from + " to " + to + " must be later and hold "
				+ "at least a microsecond per window (" + windows + ")");
		// equal windows to the microsecond, due times' own precision: the last edge is 'to' exactly
		BigInteger span = BigInteger.valueOf(end - start);
		List<Instant> edges = new ArrayList<>(windows + 1);
		for (int i = 0; i <= windows; i++) {
			long offset = span.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(windows)).longValueExact();
			edges.add(Instant.EPOCH.plus(start + offset, ChronoUnit.MICROS));
		}
		long[] counts = new long[windows];
		long before = 0;
		long after = 0;
		for (String partition : this.router.partitionNames(topic)) {
			DueCounts partitionCounts = this.store.messages().countDue(partition, edges);
			before += partitionCounts.before();
			after += partitionCounts.after();
			for (int i = 0; i < windows; i++) {
				counts[i] += partitionCounts.windows().get(i);
			}
		}
		List<DueHistogram.Window> counted = new ArrayList<>(windows);
		for (int i = 0; i < windows; i++) {
			counted.add(new DueHistogram.Window(edges.get(i), edges.get(i + 1), counts[i]));
		}
		return new DueHistogram(topic, edges.get(0), edges.get(windows), counted, before, after);
	}

}
