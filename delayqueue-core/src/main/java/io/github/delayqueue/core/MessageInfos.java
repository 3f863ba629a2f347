package io.github.delayqueue.core;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.MessageIds;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.Topics;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.StoredEntry;
import io.github.delayqueue.redis.internal.StoredMessage;
import org.jspecify.annotations.Nullable;

/**
 * Reads stored messages as {@link MessageInfo}s: the look-up by id that the queue (a producer's own message) and the
 * admin share, and the conversion the admin's listing uses too.
 */
final class MessageInfos {

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final PartitionRouter router;

	MessageInfos(RedisMessageStore store, PayloadConverter converter, PartitionRouter router) {
		this.store = store;
		this.converter = converter;
		this.router = router;
	}

	/** One script call on the message's partition. */
	Optional<MessageInfo> lookup(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		StoredEntry entry = this.store.messages().lookup(this.router.partitionOf(topic, id), id);
		return Optional.ofNullable(entry).map((found) -> toInfo(topic, found));
	}

	/** {@link #lookup(String, String)} without blocking; the arguments are checked before anything is sent. */
	CompletableFuture<Optional<MessageInfo>> lookupAsync(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		return this.router.checkAsync(topic)
			.thenCompose((checked) -> this.store.messages().lookupAsync(this.router.partitionOfChecked(topic, id), id))
			.thenApply((entry) -> Optional.ofNullable(entry).map((found) -> toInfo(topic, found)));
	}

	MessageInfo toInfo(String topic, StoredEntry entry) {
		MessageState state = switch (entry.state()) {
			case WAITING -> (entry.attempts() > 0 || entry.error() != null) ? MessageState.RETRYING
					: MessageState.WAITING;
			case LEASED -> MessageState.IN_FLIGHT;
			case DEAD -> MessageState.DEAD;
		};
		boolean dead = state == MessageState.DEAD;
		StoredMessage message = entry.message();
		String error = message.isReadable() ? entry.error() : unreadable(message, entry.error());
		Expiry expiry = entry.expiry();
		return new MessageInfo(entry.id(), topic, state, dead ? null : entry.at(), dead ? entry.at() : null,
				entry.attempts(), error, message.createdAt(), message.headers(),
				(expiry != null) ? expiry.deadline() : null, message.payload(), this.converter, message.priority());
	}

	static String unreadable(StoredMessage message, @Nullable String error) {
		return "Unreadable stored message: " + message.malformation()
				+ ((error != null) ? " (last error: " + error + ")" : "");
	}

}
