package io.github.delayqueue.migration.redisson;

import org.springframework.util.Assert;

/**
 * The Redis keys of a Redisson {@code RDelayedQueue} (as Redisson 4.7's {@code RedissonDelayedQueue} names them),
 * and the key where the migration records what it moved. A delayed queue is named after its destination queue:
 * {@code redisson.getDelayedQueue(redisson.getBlockingQueue("orders"))} uses these keys for {@code orders}.
 * <p>
 * Every key carries the name as a hash tag (or the name's own tag), so all of them live in one Redis Cluster slot.
 *
 * @param name the name of the destination queue
 * @since 1.0.0
 */
public record RedissonDelayedQueueKeys(String name) {

	/**
	 * Creates the keys of a queue.
	 * @param name the name of the destination queue, not blank
	 */
	public RedissonDelayedQueueKeys {
		Assert.isTrue(name != null && !name.isBlank(), "Redisson queue name must not be blank");
	}

	/**
	 * The sorted set of waiting elements, scored by their due time (epoch milliseconds on the producer's clock).
	 * @return {@code redisson_delay_queue_timeout:{name}}
	 */
	public String timeoutSet() {
		return prefixed("redisson_delay_queue_timeout");
	}

	/**
	 * The list of waiting elements in the order they were offered (the same elements as the sorted set).
	 * @return {@code redisson_delay_queue:{name}}
	 */
	public String delayList() {
		return prefixed("redisson_delay_queue");
	}

	/**
	 * The destination queue: a list that Redisson's transfer task fills with the elements that fell due, where the
	 * old consumers take them.
	 * @return the name itself
	 */
	public String destination() {
		return this.name;
	}

	/**
	 * The channel every Redisson client that holds this delayed queue subscribes to (its transfer task listens on
	 * it).
	 * @return {@code redisson_delay_queue_channel:{name}}
	 */
	public String channel() {
		return prefixed("redisson_delay_queue_channel");
	}

	/**
	 * The set of delayqueue message ids the migration has scheduled from this queue (its ledger), which a later run
	 * skips.
	 * @return {@code delayqueue_migrated:{name}}
	 */
	public String ledger() {
		return prefixed("delayqueue_migrated");
	}

	private String prefixed(String prefix) {
		// Redisson's RedissonObject.prefixName: a name with a hash tag of its own keeps it
		return this.name.contains("{") ? prefix + ":" + this.name : prefix + ":{" + this.name + "}";
	}

}
