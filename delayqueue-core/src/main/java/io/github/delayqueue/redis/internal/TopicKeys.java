package io.github.delayqueue.redis.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.Topics;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How a topic's keys are named: {@code <prefix>:{<topic>}:<part>}, all of a topic's keys sharing one hash tag (so one
 * cluster slot), and a partition of a topic named as a topic of its own. A subscription's keys nest in its topic's
 * slot ({@code <prefix>:{<topic>}:s:<subscription>:<part>}); the store takes its name, {@code <topic>@<subscription>},
 * where it takes a topic's.
 *
 * @since 1.0.0
 */
public final class TopicKeys {

	private final String prefix;

	/** The most topics whose pending key is kept, so that an application making up topic names cannot grow it. */
	private static final int MAX_CACHED_KEYS = 10_000;

	private final Map<String, byte[]> pendingKeys = new ConcurrentHashMap<>();

	/**
	 * Creates the naming of one key prefix.
	 * @param prefix the prefix of every key, such as {@code dq}
	 * @throws IllegalArgumentException if the prefix breaks a rule of {@link #validatePrefix(String)}
	 */
	public TopicKeys(String prefix) {
		validatePrefix(prefix);
		this.prefix = prefix;
	}

	/**
	 * Checks a key prefix: not blank, no braces (they would change the hash tag that keeps a topic's keys in one
	 * cluster slot), no white space or control characters.
	 * @param prefix the prefix
	 * @throws IllegalArgumentException if it breaks a rule
	 */
	public static void validatePrefix(@Nullable String prefix) {
		Assert.isTrue(prefix != null && !prefix.isBlank()
				&& prefix.chars().noneMatch((c) -> c == '{' || c == '}' || Character.isWhitespace(c)
						|| Character.isISOControl(c)),
				() -> "Key prefix must not be blank or contain braces, white space or control characters, but was '"
						+ prefix + "'");
	}

	/**
	 * The name under which a partition of a topic is kept, to pass where the store takes a topic: the topic itself
	 * for partition 0 (so a topic of one partition keeps the layout topics always had), else
	 * {@code <topic>#<partition>}, a hash tag of its own ({@code #} never appears in a topic).
	 * @param topic the topic
	 * @param partition the partition, 0 or more
	 * @return the name
	 */
	public static String partitionName(String topic, int partition) {
		Assert.isTrue(partition >= 0, () -> "Partition must not be negative, but was " + partition);
		if (partition == 0) {
			return topic;
		}
		int at = topic.indexOf(Topics.SUBSCRIPTION_SEPARATOR);
		return (at < 0) ? topic + "#" + partition
				: topic.substring(0, at) + "#" + partition + topic.substring(at);
	}

	/**
	 * The topic (or the topic's partition) of a name the store takes: the name itself, or for a subscription's
	 * ({@code <topic>@<subscription>}, see {@link Topics#subscriptionName}) the part before the separator.
	 * @param name a topic's, a partition's or a subscription's name
	 * @return the topic's (or partition's) name
	 * @since 1.0.0
	 */
	public static String topicOf(String name) {
		int at = name.indexOf(Topics.SUBSCRIPTION_SEPARATOR);
		return (at < 0) ? name : name.substring(0, at);
	}

	/**
	 * The subscription a name the store takes belongs to.
	 * @param name a topic's, a partition's or a subscription's name
	 * @return the subscription's own name, or {@code null} for a topic's or a partition's name
	 * @since 1.0.0
	 */
	public static @Nullable String subscriptionOf(String name) {
		int at = name.indexOf(Topics.SUBSCRIPTION_SEPARATOR);
		return (at < 0) ? null : name.substring(at + 1);
	}

	/**
	 * The prefix of every key.
	 * @return the prefix
	 */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * The pub/sub channel on which the delay to a topic's new earliest due time is published.
	 * @param topic the topic (or a partition's name)
	 * @return the channel name
	 */
	public String wakeChannel(String topic) {
		// a subscription's: its topic's
		return base(topicOf(topic)) + "wake";
	}

	/**
	 * The key every script of a topic gets first (its pending set); the scripts name the others from it. Kept once
	 * made, for up to {@value #MAX_CACHED_KEYS} topics (partitions count as topics): every claim and schedule needs it.
	 * The bytes are shared: callers must not change them.
	 */
	public byte[] pending(String topic) {
		byte[] key = this.pendingKeys.get(topic);
		if (key == null) {
			key = Replies.bytes(base(topic) + "pending");
			if (this.pendingKeys.size() < MAX_CACHED_KEYS) {
				this.pendingKeys.put(topic, key);
			}
		}
		return key;
	}

	/** The set of known topics, outside any topic's slot. */
	byte[] topics() {
		return Replies.bytes(this.prefix + ":topics");
	}

	/** The hash of recurring schedule definitions, outside any topic's slot. */
	public byte[] recurringDefinitions() {
		return Replies.bytes(this.prefix + ":recurring");
	}

	/** A key of a topic's slot beside its messages. */
	public byte[] topicKey(String topic, String part) {
		return Replies.bytes(base(topic) + part);
	}

	private String base(String topic) {
		int at = topic.indexOf(Topics.SUBSCRIPTION_SEPARATOR);
		if (at < 0) {
			return this.prefix + ":{" + topic + "}:";
		}
		// a subscription's keys nest in its topic's slot: <prefix>:{<topic>}:s:<subscription>:<part>
		return this.prefix + ":{" + topic.substring(0, at) + "}:s:" + topic.substring(at + 1) + ":";
	}

}
