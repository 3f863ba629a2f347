package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.Topics;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Position;
import io.github.delayqueue.redis.internal.StoredEntry;

import org.springframework.util.Assert;

/**
 * Lists a topic's waiting messages by due time, a page at a time across its partitions (the admin's
 * {@code listWaiting}): each page ends with a cursor, the last message's position, from which the next page goes on.
 */
final class WaitingListing {

	private final RedisMessageStore store;

	private final PartitionRouter router;

	private final MessageInfos infos;

	WaitingListing(RedisMessageStore store, PartitionRouter router, MessageInfos infos) {
		this.store = store;
		this.router = router;
		this.infos = infos;
	}

	MessagePage list(String topic, WaitingQuery query) {
		Topics.validateTopicOrSubscription(topic);
		Assert.notNull(query, "Query must not be null");
		Position after = (query.cursor() != null) ? decodeCursor(query.cursor()) : null;
		List<StoredEntry> merged = new ArrayList<>();
		List<String> partitions = this.router.partitionNames(topic);
		for (String partition : partitions) {
			merged.addAll(this.store.messages().waiting(partition, query.from(), query.to(), after, query.limit()));
		}
		if (partitions.size() > 1) {
			merged.sort(Comparator.comparing(StoredEntry::position));
		}
		List<StoredEntry> page = (merged.size() > query.limit()) ? merged.subList(0, query.limit()) : merged;
		List<MessageInfo> messages = page.stream().map((entry) -> this.infos.toInfo(topic, entry)).toList();
		// a full page may have a next one; its cursor is the last message's position
		String next = (page.size() == query.limit()) ? encodeCursor(page.get(page.size() - 1).position()) : null;
		return new MessagePage(messages, next);
	}

	private static String encodeCursor(Position position) {
		return Base64.getUrlEncoder()
			.withoutPadding()
			.encodeToString((position.score() + "\n" + position.id()).getBytes(StandardCharsets.UTF_8));
	}

	private static Position decodeCursor(String cursor) {
		try {
			String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			int newline = text.indexOf('\n');
			Assert.isTrue(newline > 0, "no separator");
			return new Position(text.substring(0, newline), text.substring(newline + 1));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Not a cursor that listWaiting returned: '" + cursor + "'", ex);
		}
	}

}
