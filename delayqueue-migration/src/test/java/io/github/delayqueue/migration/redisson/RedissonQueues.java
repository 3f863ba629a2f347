package io.github.delayqueue.migration.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.github.delayqueue.build.redis.TestRedis;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
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
		Config config = config(redis);
		config.setCodec(codec);
		return new RedissonQueues(Redisson.create(config));
	}

	/**
	 * A client with Redisson's default codec, as most applications had ({@code Kryo5Codec} in Redisson 4.7).
	 * @param redis the test's Redis
	 * @return the client
	 */
	static RedissonQueues connectWithDefaultCodec(TestRedis redis) {
		return new RedissonQueues(Redisson.create(config(redis)));
	}

	private static Config config(TestRedis redis) {
		Config config = new Config();
		config.useSingleServer()
			.setAddress("redis://" + redis.host() + ":" + redis.port())
			.setDatabase(redis.database());
		return config;
	}

	/**
	 * The codec the client writes with.
	 * @return the codec
	 */
	Codec codec() {
		return this.client.getConfig().getCodec();
	}

	/**
	 * Offers many values, a window of them in flight at a time (Redisson's own {@code offerAsync}).
	 * @param queue the destination queue's name
	 * @param count how many
	 * @param value the value of each index
	 * @param delay the delay of each index
	 */
	@SuppressWarnings("deprecation")
	void offerAll(String queue, int count, IntFunction<Object> value, IntFunction<Duration> delay) {
		RDelayedQueue<Object> delayed = this.client.getDelayedQueue(this.client.getBlockingQueue(queue));
		List<RFuture<Void>> window = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			window.add(delayed.offerAsync(value.apply(i), delay.apply(i).toMillis(), TimeUnit.MILLISECONDS));
			if (window.size() == 1_000 || i == count - 1) {
				window.forEach((future) -> future.toCompletableFuture().join());
				window.clear();
			}
		}
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
