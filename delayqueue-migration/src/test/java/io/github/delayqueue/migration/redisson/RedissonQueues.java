package io.github.delayqueue.migration.redisson;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.build.redis.TestRedis;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;
import org.redisson.config.Config;

/**
 * A Redisson 4.7 client on a test's Redis, offering to an {@code RDelayedQueue} as an application that used it did.
 */
final class RedissonQueues implements AutoCloseable {

	private final RedissonClient client;

	private RedissonQueues(RedissonClient client) {
		this.client = client;
	}

	static RedissonQueues connect(TestRedis redis, Codec codec) {
		Config config = new Config();
		config.useSingleServer()
			.setAddress("redis://" + redis.host() + ":" + redis.port())
			.setDatabase(redis.database());
		config.setCodec(codec);
		return new RedissonQueues(Redisson.create(config));
	}

	/**
	 * Offers a value to the delayed queue that feeds the named destination queue.
	 * @param queue the destination queue's name
	 * @param value the value
	 * @param delay its delay
	 * @return the earliest epoch millisecond its due time can be (Redisson adds the delay to its clock's now)
	 */
	@SuppressWarnings("deprecation")
	long offer(String queue, Object value, Duration delay) {
		RDelayedQueue<Object> delayed = this.client.getDelayedQueue(this.client.getBlockingQueue(queue));
		long earliestDue = System.currentTimeMillis() + delay.toMillis();
		delayed.offer(value, delay.toMillis(), TimeUnit.MILLISECONDS);
		return earliestDue;
	}

	/**
	 * Elements in the destination queue: due, moved there by Redisson's transfer task, not taken yet.
	 * @param queue the destination queue's name
	 * @return their number
	 */
	int due(String queue) {
		return this.client.getBlockingQueue(queue).size();
	}

	/** Stops the client, as stopping the old consumers and producers does. */
	@Override
	public void close() {
		this.client.shutdown();
	}

}
