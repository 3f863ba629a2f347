package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.internal.Replies.bytes;

/**
 * The subscriptions of each topic, kept in Redis beside the topic's messages so that every instance knows them: a
 * message that falls due fans out to each subscription declared by then, and is kept (one envelope) until every one
 * of them is done with it. Obtained from {@link RedisMessageStore#subscriptions()}.
 *
 * @since 1.0.0
 */
public final class SubscriptionRegistry {

	private static final Script SUBSCRIBE = Script.load("subscribe");

	private static final Script UNSUBSCRIBE = Script.load("unsubscribe");

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public SubscriptionRegistry(TopicKeys keys, ScriptExecutor scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	/**
	 * Declares a subscription of a topic (of one of its partitions: each partition keeps its own list), if it is not
	 * declared already: the messages that fall due from now on fan out to it too.
	 * @param topic the topic's or the partition's name
	 * @param subscription the subscription's own name
	 * @return whether it is new
	 * @throws io.github.delayqueue.InvalidTopicException if a name is not valid
	 */
	public boolean declare(String topic, String subscription) {
		Topics.validateSubscription(subscription);
		return !run(topic, bytes(subscription)).containsKey(subscription);
	}

	/**
	 * The subscriptions declared for a topic (or one of its partitions), with when each was declared (Redis time).
	 * @param topic the topic's or the partition's name
	 * @return the subscriptions by name, in no particular order; empty for a topic without any
	 */
	public Map<String, Instant> of(String topic) {
		return run(topic, NONE);
	}

	/**
	 * Removes a subscription of a topic (of one of its partitions): no message fans out to it any more, and the
	 * messages it holds (waiting, leased or dead) are forgotten, a chunk per call, each envelope deleted once no other
	 * subscription holds its message. Stop its listeners first: a listener that starts declares its subscription again.
	 * @param topic the topic's or the partition's name
	 * @param subscription the subscription's own name
	 * Each call of the script forgets up to {@value RedisMessageStore#CHUNK_SIZE} messages.
	 * @throws io.github.delayqueue.InvalidTopicException if a name is not valid
	 */
	public void remove(String topic, String subscription) {
		Topics.validateSubscription(subscription);
		// the first call takes it off the list; the later ones only forget what it holds
		long left = forget(topic, subscription, RedisMessageStore.CHUNK_SIZE, true);
		while (left > 0) {
			left = forget(topic, subscription, RedisMessageStore.CHUNK_SIZE, false);
		}
	}

	/** One call of a removal: forgets up to {@code chunk} messages; returns how many the subscription still holds. */
	long forget(String topic, String subscription, int chunk, boolean first) {
		byte[] key = this.keys.pending(topic + Topics.SUBSCRIPTION_SEPARATOR + subscription);
		return Replies.number(this.scripts.run(UNSUBSCRIBE, ReturnType.INTEGER, key, bytes(chunk),
				first ? bytes("1") : NONE));
	}

	private Map<String, Instant> run(String topic, byte[] subscription) {
		List<?> reply = (List<?>) this.scripts.run(SUBSCRIBE, ReturnType.MULTI, this.keys.pending(topic),
				subscription);
		Map<String, Instant> declared = new LinkedHashMap<>();
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			declared.put(Replies.text(reply.get(i)), Instant.ofEpochMilli(Replies.number(reply.get(i + 1))));
		}
		return declared;
	}

}
