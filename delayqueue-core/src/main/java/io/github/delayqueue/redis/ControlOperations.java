package io.github.delayqueue.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.Replies.bytes;
import static io.github.delayqueue.redis.Replies.nullableText;
import static io.github.delayqueue.redis.Replies.number;

/**
 * A topic's pause, rate limit and concurrency cap, kept in Redis beside its messages (one partition's at a time), so
 * that every instance's claims follow them: a claim leases nothing while paused, no more than the cap leaves free,
 * and no more than a token bucket on the Redis clock allows. A topic that uses none of them costs its claims one
 * command. Obtained from {@link RedisMessageStore#controls()}.
 *
 * @since 0.3.0
 */
public final class ControlOperations {

	private static final Script CONTROL = Script.load("control");

	private static final byte[] READ = bytes("read");

	private static final byte[] PAUSE = bytes("pause");

	private static final byte[] RESUME = bytes("resume");

	private static final byte[] LIMIT = bytes("limit");

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	ControlOperations(TopicKeys keys, ScriptExecutor scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	/**
	 * Reads the controls of a topic.
	 * @param topic the topic (or a partition's name)
	 * @return the controls
	 */
	public ControlState read(String topic) {
		return stateOf(this.scripts.run(CONTROL, ReturnType.MULTI, this.keys.pending(topic), READ));
	}

	/**
	 * Pauses a topic: claims lease nothing until it is resumed; messages keep their due times.
	 * @param topic the topic (or a partition's name)
	 * @return the controls now
	 */
	public ControlState pause(String topic) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), PAUSE));
	}

	/**
	 * Resumes a paused topic and wakes its consumers, so that what is due is delivered at once.
	 * @param topic the topic (or a partition's name)
	 * @return the controls now
	 */
	public ControlState resume(String topic) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), RESUME));
	}

	/**
	 * Sets or clears a topic's rate limit and concurrency cap, and wakes its consumers.
	 * @param topic the topic (or a partition's name)
	 * @param ratePerSecond the most handler starts per second, or {@code null} for no limit
	 * @param burst the most starts saved up while idle (used only with a rate)
	 * @param cap the most messages leased at once, or {@code null} for no cap
	 * @return the controls now
	 */
	public ControlState limit(String topic, @Nullable Double ratePerSecond, double burst, @Nullable Long cap) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), LIMIT,
				(ratePerSecond != null) ? bytes(Double.toString(ratePerSecond)) : NONE,
				bytes(Double.toString(burst)), (cap != null) ? bytes(cap) : NONE));
	}

	private static ControlState stateOf(List<?> reply) {
		String rate = nullableText(reply.get(1));
		String burst = nullableText(reply.get(2));
		String cap = nullableText(reply.get(3));
		return new ControlState(number(reply.get(0)) == 1L, (rate != null) ? Double.valueOf(rate) : null,
				(burst != null) ? Double.valueOf(burst) : null, (cap != null) ? Long.valueOf(cap) : null);
	}

	/**
	 * The controls of one topic or partition as Redis keeps them.
	 * @param paused whether claims lease nothing
	 * @param ratePerSecond the most handler starts per second, or {@code null}
	 * @param burst the most starts saved up, or {@code null}
	 * @param cap the most messages leased at once, or {@code null}
	 */
	public record ControlState(boolean paused, @Nullable Double ratePerSecond, @Nullable Double burst,
			@Nullable Long cap) {
	}

}
