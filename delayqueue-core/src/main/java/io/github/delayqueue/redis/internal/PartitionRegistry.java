package io.github.delayqueue.redis.internal;

import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.number;

/**
 * The partition count Redis keeps for each topic, which every producer and consumer of the topic must use. Obtained
 * from {@link RedisMessageStore#partitions()}.
 *
 * @since 1.0.0
 */
public final class PartitionRegistry {

	private static final Script PARTITIONS = Script.load("partitions");

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final MessageOperations messages;

	private final SubscriptionRegistry subscriptions;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public PartitionRegistry(TopicKeys keys, ScriptExecutor scripts, MessageOperations messages,
			SubscriptionRegistry subscriptions) {
		this.keys = keys;
		this.scripts = scripts;
		this.messages = messages;
		this.subscriptions = subscriptions;
	}

	/**
	 * How many partitions Redis keeps for a topic.
	 * @param topic the topic
	 * @return the count; 1 for a topic never used with more
	 */
	public int of(String topic) {
		int stored = stored(topic);
		return (stored == 0) ? 1 : stored;
	}

	private int stored(String topic) {
		return (int) number(this.scripts.run(PARTITIONS, ReturnType.INTEGER, this.keys.pending(topic), NONE, NONE));
	}

	/** Keeps a count if the count kept now is {@code expected} (0: none); returns the count kept before. */
	private int keep(String topic, int partitions, int expected) {
		return (int) number(this.scripts.run(PARTITIONS, ReturnType.INTEGER, this.keys.pending(topic),
				bytes(partitions), bytes(expected)));
	}

	/**
	 * Makes sure Redis keeps the given partition count for a topic; the first application to use a topic records
	 * its count (a topic that holds messages of one partition already cannot start with more). Every producer and
	 * consumer of a topic must use the count Redis keeps; {@link #change(String, int)} changes it.
	 * @param topic the topic
	 * @param partitions the count this application uses
	 * @throws IllegalStateException if Redis keeps another count, saying what to do
	 */
	public void check(String topic, int partitions) {
		Assert.isTrue(partitions >= 1, () -> "Partitions must be at least 1, but was " + partitions);
		int stored = stored(topic);
		if (stored == 0) {
			if (partitions > 1 && held(topic, 1) > 0) {
				throw new IllegalStateException("Topic '" + topic + "' holds messages of one partition, but this "
						+ "application uses " + partitions + ". " + howToChange(topic));
			}
			stored = keep(topic, partitions, 0);
			if (stored == 0) {
				return;
			}
		}
		if (stored != partitions) {
			throw new IllegalStateException("Topic '" + topic + "' has " + stored + " partition(s) in Redis, but this "
					+ "application uses " + partitions + "; every producer and consumer of a topic must use the count "
					+ "Redis keeps. " + howToChange(topic));
		}
	}

	/**
	 * {@link #check(String, int)} without blocking a thread.
	 * @param topic the topic
	 * @param partitions the count this application uses
	 * @return completes once checked; fails with an {@link IllegalStateException} if Redis keeps another count
	 * @throws IllegalStateException if the store has no non-blocking connection
	 * @since 1.0.0
	 */
	public CompletableFuture<Void> checkAsync(String topic, int partitions) {
		Assert.isTrue(partitions >= 1, () -> "Partitions must be at least 1, but was " + partitions);
		return storedAsync(topic).thenCompose((stored) -> {
			if (stored != 0) {
				return CompletableFuture.completedFuture(stored);
			}
			CompletableFuture<Long> held = (partitions > 1)
					? this.messages.statsAsync(TopicKeys.partitionName(topic, 0))
						.thenApply((counts) -> counts.waiting() + counts.ready() + counts.leased() + counts.dead())
					: CompletableFuture.completedFuture(0L);
			return held.thenCompose((count) -> {
				if (count > 0) {
					throw new IllegalStateException("Topic '" + topic + "' holds messages of one partition, but this "
							+ "application uses " + partitions + ". " + howToChange(topic));
				}
				return keepAsync(topic, partitions, 0).thenApply((before) -> (before == 0) ? partitions : before);
			});
		}).thenAccept((stored) -> {
			if (stored != partitions) {
				throw new IllegalStateException("Topic '" + topic + "' has " + stored + " partition(s) in Redis, but "
						+ "this application uses " + partitions + "; every producer and consumer of a topic must use "
						+ "the count Redis keeps. " + howToChange(topic));
			}
		});
	}

	private CompletableFuture<Integer> storedAsync(String topic) {
		return this.messages.reactiveScriptsForRegistry()
			.run(PARTITIONS, ReturnType.INTEGER, this.keys.pending(topic), NONE, NONE)
			.thenApply((reply) -> (int) number(reply));
	}

	private CompletableFuture<Integer> keepAsync(String topic, int partitions, int expected) {
		return this.messages.reactiveScriptsForRegistry()
			.run(PARTITIONS, ReturnType.INTEGER, this.keys.pending(topic), bytes(partitions), bytes(expected))
			.thenApply((reply) -> (int) number(reply));
	}

	/**
	 * Changes the partition count Redis keeps for a topic, only while the topic holds no message in any partition
	 * (waiting, in flight or dead). Stop every instance that uses the topic first (they check the count once), and
	 * start them with the new count afterwards.
	 * @param topic the topic
	 * @param partitions the new count
	 * @throws IllegalStateException if the topic holds messages, or its count changed meanwhile
	 */
	public void change(String topic, int partitions) {
		Assert.isTrue(partitions >= 1, () -> "Partitions must be at least 1, but was " + partitions);
		int stored = stored(topic);
		long held = held(topic, Math.max(Math.max(stored, 1), partitions));
		if (held > 0) {
			throw new IllegalStateException("Topic '" + topic + "' holds " + held + " message(s); its partition count "
					+ "changes only while it is empty. " + howToChange(topic));
		}
		int before = keep(topic, partitions, stored);
		Assert.state(before == stored, () -> "Topic '" + topic + "': its partition count changed meanwhile, from "
				+ stored + " to " + before);
	}

	/**
	 * Messages a topic holds in its first {@code partitions} partitions, in every state, its subscriptions' copies
	 * included.
	 */
	private long held(String topic, int partitions) {
		long held = 0;
		for (int partition = 0; partition < partitions; partition++) {
			String name = TopicKeys.partitionName(topic, partition);
			held += held(name);
			for (String subscription : this.subscriptions.of(name).keySet()) {
				held += held(name + Topics.SUBSCRIPTION_SEPARATOR + subscription);
			}
		}
		return held;
	}

	private long held(String name) {
		TopicCounts counts = this.messages.stats(name);
		return counts.waiting() + counts.ready() + counts.leased() + counts.dead();
	}

	private static String howToChange(String topic) {
		return "To change the count: let consumers with the old count drain the topic (replay or purge its dead "
				+ "letters), stop every instance that uses it, call changePartitions('" + topic + "', n) "
				+ "(DelayedQueueAdmin), then start the instances with the new count.";
	}

}
