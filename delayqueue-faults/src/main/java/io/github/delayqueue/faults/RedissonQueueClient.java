package io.github.delayqueue.faults;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.jspecify.annotations.Nullable;
import org.redisson.client.codec.StringCodec;

/**
 * The producing side of Redisson's {@code RDelayedQueue}: {@code offer(value, delay, unit)}. It has no ids: every
 * offer is a new message.
 */
@SuppressWarnings("deprecation")
final class RedissonQueueClient implements QueueClient {

	private final RedissonClient client;

	private final RBlockingQueue<String> queue;

	private final RDelayedQueue<String> delayed;

	RedissonQueueClient(int port, long timeoutMillis) {
		this.client = RedissonConsumer.client(port, timeoutMillis);
		this.queue = this.client.getBlockingQueue(RedissonConsumer.QUEUE, StringCodec.INSTANCE);
		this.delayed = this.client.getDelayedQueue(this.queue);
	}

	@Override
	public boolean send(String id, Work work) {
		this.delayed.offer(work.toText(), Math.max(0, work.due() - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		return true;
	}

	@Override
	public void sendUnreadable(String id, long due) {
		throw new UnsupportedOperationException("The suite sends Redisson no poison messages");
	}

	@Override
	public long remaining() {
		return this.delayed.size() + this.queue.size();
	}

	@Override
	public Set<String> deadLetterIds() {
		return Set.of();
	}

	/** Redisson's {@code RDelayedQueue} has no look-up by id: {@code null}. */
	@Override
	public @Nullable Map<String, Held> held(Collection<String> keys) {
		return null;
	}

	@Override
	public void close() {
		this.delayed.destroy();
		this.client.shutdown();
	}

}
