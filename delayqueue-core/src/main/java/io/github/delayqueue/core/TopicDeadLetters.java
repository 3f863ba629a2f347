package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.StoredDeadLetter;
import io.github.delayqueue.redis.internal.StoredMessage;

import org.springframework.util.Assert;

/**
 * A topic's dead letters across its partitions (the admin's): listed a page at a time, oldest first, and replayed or
 * purged one by one (in the message's partition) or all at once (in every partition).
 */
final class TopicDeadLetters {

	private static final int MAX_DEAD_LETTER_PAGE = 1000;

	/** How deep the dead letters of a topic of several partitions can be paged (each partition reads that many). */
	private static final int MAX_DEAD_LETTER_WINDOW = 10_000;

	private final RedisMessageStore store;

	private final PartitionRouter router;

	TopicDeadLetters(RedisMessageStore store, PartitionRouter router) {
		this.store = store;
		this.router = router;
	}

	List<DeadLetter> list(String topic, int offset, int limit) {
		Topics.validateTopicOrSubscription(topic);
		Assert.isTrue(offset >= 0, () -> "Offset must not be negative, but was " + offset);
		Assert.isTrue(limit >= 1 && limit <= MAX_DEAD_LETTER_PAGE,
				() -> "Limit must be between 1 and " + MAX_DEAD_LETTER_PAGE + ", but was " + limit);
		List<String> partitions = this.router.partitionNames(topic);
		Assert.isTrue(partitions.size() == 1 || offset <= MAX_DEAD_LETTER_WINDOW - limit,
				() -> "A topic of several partitions lists its first " + MAX_DEAD_LETTER_WINDOW
						+ " dead letters at most (offset + limit), but offset was " + offset);
		if (partitions.size() == 1) {
			return this.store.deadLetters()
				.list(partitions.get(0), offset, limit)
				.stream()
				.map((letter) -> toDeadLetter(topic, letter))
				.toList();
		}
		// oldest first across partitions: the page is among the first offset + limit of each
		List<StoredDeadLetter> merged = new ArrayList<>();
		for (String partition : partitions) {
			merged.addAll(this.store.deadLetters().list(partition, 0, offset + limit));
		}
		merged.sort(Comparator.comparing(StoredDeadLetter::diedAt).thenComparing(StoredDeadLetter::id));
		return merged.stream().skip(offset).limit(limit).map((letter) -> toDeadLetter(topic, letter)).toList();
	}

	private static DeadLetter toDeadLetter(String topic, StoredDeadLetter letter) {
		StoredMessage message = letter.message();
		String error = letter.error();
		if (!message.isReadable()) {
			error = MessageInfos.unreadable(message, error);
		}
		return new DeadLetter(letter.id(), topic, letter.attempts(), error, letter.diedAt(), message.createdAt(),
				message.headers(), message.payload());
	}

	boolean replay(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		return this.store.deadLetters().replay(this.router.partitionOf(topic, id), id);
	}

	long replayAll(String topic) {
		Topics.validateTopicOrSubscription(topic);
		return this.router.partitionNames(topic).stream().mapToLong(this.store.deadLetters()::replayAll).sum();
	}

	boolean purge(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		return this.store.deadLetters().purge(this.router.partitionOf(topic, id), id);
	}

	long purgeAll(String topic) {
		Topics.validateTopicOrSubscription(topic);
		return this.router.partitionNames(topic).stream().mapToLong(this.store.deadLetters()::purgeAll).sum();
	}

}
