package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's {@code RDelayedQueue} used as its documentation shows: {@code offer(value, delay, unit)} into a
 * delayed queue in front of an {@code RBlockingQueue}, consumers polling the blocking queue with a timeout.
 * Payloads use {@link StringCodec} (the same text our queue stores as JSON), which is the cheapest codec Redisson
 * has, so its figures are not burdened by serialisation. The command timeout is raised to 60 s so that its O(n)
 * {@code remove} is measured rather than timed out.
 * <p>
 * {@code RDelayedQueue} is deprecated in Redisson 4: it is measured because it is what users run today.
 */
@SuppressWarnings("deprecation")
final class RedissonSystem implements QueueUnderTest {

	static final String QUEUE = "bench";

	private static final int WINDOW = 512;

	private final String address;

	private final RedissonClient client;

	private final RBlockingQueue<String> destination;

	private final RDelayedQueue<String> delayed;

	RedissonSystem(String host, int port) {
		this.address = "redis://" + host + ":" + port;
		this.client = client(this.address);
		this.destination = this.client.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
		this.delayed = this.client.getDelayedQueue(this.destination);
	}

	private static RedissonClient client(String address) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress(address).setTimeout(60_000);
		return Redisson.create(config);
	}

	@Override
	public String name() {
		return "Redisson";
	}

	@Override
	public void schedule(Message message, long delayMillis) {
		this.delayed.offer(message.payload(), delayMillis, TimeUnit.MILLISECONDS);
	}

	@Override
	public void scheduleMany(List<Message> messages) {
		Semaphore window = new Semaphore(WINDOW);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		for (Message message : messages) {
			window.acquireUninterruptibly();
			long delay = Math.max(0, message.dueAtMillis() - System.currentTimeMillis());
			this.delayed.offerAsync(message.payload(), delay, TimeUnit.MILLISECONDS).whenComplete((ok, ex) -> {
				if (ex != null) {
					failure.compareAndSet(null, ex);
				}
				window.release();
			});
		}
		window.acquireUninterruptibly(WINDOW);
		if (failure.get() != null) {
			throw new IllegalStateException("Redisson offer failed", failure.get());
		}
	}

	@Override
	public void scheduleAsync(List<Message> messages, int inFlight) {
		Semaphore window = new Semaphore(inFlight);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		for (Message message : messages) {
			window.acquireUninterruptibly();
			long delay = Math.max(0, message.dueAtMillis() - System.currentTimeMillis());
			this.delayed.offerAsync(message.payload(), delay, TimeUnit.MILLISECONDS).whenComplete((ok, ex) -> {
				if (ex != null) {
					failure.compareAndSet(null, ex);
				}
				window.release();
			});
		}
		window.acquireUninterruptibly(inFlight);
		if (failure.get() != null) {
			throw new IllegalStateException("Redisson offerAsync failed", failure.get());
		}
	}

	@Override
	public boolean hasBatchedApi() {
		return false;
	}

	@Override
	public boolean cancel(Message message) {
		return this.delayed.remove(message.payload());
	}

	/**
	 * Whether a message waits ({@code contains}: a scan of the queue).
	 * @param message the message
	 * @return whether it waits
	 */
	boolean contains(Message message) {
		return this.delayed.contains(message.payload());
	}

	/** Deletes every waiting message ({@code clear}). */
	void clear() {
		this.delayed.clear();
	}

	@Override
	public Consumer consume(int threads, Handler handler) {
		// a consumer is its own client, as in another application instance; it must create the delayed queue
		// too, or nothing is transferred to the blocking queue for it
		RedissonClient consumerClient = client(this.address);
		RBlockingQueue<String> queue = consumerClient.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
		RDelayedQueue<String> transfer = consumerClient.getDelayedQueue(queue);
		List<Thread> pollers = new ArrayList<>();
		AtomicBoolean running = new AtomicBoolean(true);
		for (int i = 0; i < threads; i++) {
			Thread poller = new Thread(() -> {
				while (running.get()) {
					try {
						String payload = queue.poll(1, TimeUnit.SECONDS);
						if (payload != null) {
							handler.handle(payload, Handler.NO_STORED_DUE);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					catch (RuntimeException ex) {
						if (running.get()) {
							Benchmarks.log("Redisson poll failed: " + ex);
						}
					}
				}
			}, "redisson-consumer-" + i);
			poller.setDaemon(true);
			poller.start();
			pollers.add(poller);
		}
		return () -> {
			running.set(false);
			for (Thread poller : pollers) {
				try {
					poller.join(5_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			transfer.destroy();
			consumerClient.shutdown();
		};
	}

	@Override
	public void close() {
		this.delayed.destroy();
		this.client.shutdown();
	}

}
