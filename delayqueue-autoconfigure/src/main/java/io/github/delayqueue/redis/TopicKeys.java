package io.github.delayqueue.redis;

import java.util.List;

/**
 * The Redis key names of one topic. All share the hash tag {@code {topic}}, so a topic's scripts touch one
 * cluster slot: {@code <prefix>:{<topic>}:msgs}, {@code …:due}, {@code …:inflight}, {@code …:attempts},
 * {@code …:dead}, {@code …:errors}, and the pub/sub channel {@code …:wake}.
 *
 * @param msgs hash of id to envelope, for every message of the topic
 * @param due sorted set of waiting message ids by due time (Redis-clock milliseconds)
 * @param inflight sorted set of claimed message ids by lease deadline
 * @param attempts hash of id to delivery attempts so far
 * @param dead sorted set of dead message ids by the time they died
 * @param errors hash of id to the last error
 * @param wake the channel on which the delay to a new earliest due time is published
 */
public record TopicKeys(String msgs, String due, String inflight, String attempts, String dead, String errors,
		String wake) {

	/**
	 * The keys of a topic.
	 * @param prefix the key prefix
	 * @param topic the topic, already validated
	 * @return the keys
	 */
	public static TopicKeys of(String prefix, String topic) {
		String base = prefix + ":{" + topic + "}:";
		return new TopicKeys(base + "msgs", base + "due", base + "inflight", base + "attempts", base + "dead",
				base + "errors", base + "wake");
	}

	List<String> all() {
		return List.of(this.msgs, this.due, this.inflight, this.attempts, this.dead, this.errors);
	}

}
