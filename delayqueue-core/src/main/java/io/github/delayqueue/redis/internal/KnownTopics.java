package io.github.delayqueue.redis.internal;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;


import static io.github.delayqueue.redis.internal.Replies.text;

/**
 * The set of known topics ({@code <prefix>:topics}): every topic scheduled to or consumed from with a key prefix,
 * which metrics and the actuator endpoint list. One command outside the topics' slots; callers send it once per topic
 * per process. Obtained from {@link RedisMessageStore#topics()}.
 *
 * @since 1.0.0
 */
public final class KnownTopics {

	private final byte[] key;

	private final ScriptExecutor scripts;

	private final @Nullable ReactiveScriptExecutor reactiveScripts;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public KnownTopics(TopicKeys keys, ScriptExecutor scripts, @Nullable ReactiveScriptExecutor reactiveScripts) {
		this.key = keys.topics();
		this.scripts = scripts;
		this.reactiveScripts = reactiveScripts;
	}

	/**
	 * Adds a topic to the set without blocking.
	 * @param topic the topic
	 * @return completes once Redis replied
	 * @throws IllegalStateException if the store has no non-blocking connection
	 * @since 1.0.0
	 */
	public CompletableFuture<Void> registerAsync(String topic) {
		ReactiveScriptExecutor reactive = ReactiveScriptExecutor.required(this.reactiveScripts);
		return reactive.sAdd(this.key, Replies.bytes(topic)).thenApply((added) -> null);
	}

	/**
	 * Adds topics to the set.
	 * @param topics the topics
	 */
	public void register(Collection<String> topics) {
		if (!topics.isEmpty()) {
			byte[][] members = topics.stream().map(Replies::bytes).toArray(byte[][]::new);
			this.scripts.execute((connection) -> connection.setCommands().sAdd(this.key, members));
		}
	}

	/**
	 * Takes a name off the set, such as a subscription's once it is removed.
	 * @param topic the topic's or the subscription's full name
	 * @since 1.0.0
	 */
	public void forget(String topic) {
		this.scripts.execute((connection) -> connection.setCommands().sRem(this.key, Replies.bytes(topic)));
	}

	/**
	 * Whether a topic is known.
	 * @param topic the topic
	 * @return {@code true} if it was registered
	 */
	public boolean contains(String topic) {
		Boolean member = this.scripts
			.execute((connection) -> connection.setCommands().sIsMember(this.key, Replies.bytes(topic)));
		return Boolean.TRUE.equals(member);
	}

	/**
	 * The known topics.
	 * @return the topics, sorted
	 */
	public Set<String> all() {
		Set<byte[]> members = this.scripts.execute((connection) -> connection.setCommands().sMembers(this.key));
		Set<String> topics = new TreeSet<>();
		if (members != null) {
			members.forEach((member) -> topics.add(text(member)));
		}
		return topics;
	}

}
