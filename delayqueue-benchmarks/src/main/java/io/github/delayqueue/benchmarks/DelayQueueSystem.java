package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * delayqueue, built the way the README shows for use without Spring Boot, with its default settings (10 ms wheel
 * tick, 1 s fallback poll, 100 messages per claim).
 */
final class DelayQueueSystem implements QueueUnderTest {

	static final String TOPIC = "bench";

	private static final int BATCH = RedisMessageStore.CHUNK_SIZE;

	private static final int BATCH_THREADS = 4;

	private final String host;

	private final int port;

	private final PayloadConverter converter = new JacksonPayloadConverter();

	private final LettuceConnectionFactory factory;

	private final RedisMessageStore store;

	private final RedisDelayedQueue queue;

	private final ExecutorService batchSenders = Executors.newFixedThreadPool(BATCH_THREADS);

	/** The stored format the run's stores write ({@code --stored-format}, set as the options are read). */
	static volatile int storedFormat = 5;

	DelayQueueSystem(String host, int port) {
		this.host = host;
		this.port = port;
		this.factory = connectionFactory(host, port);
		this.store = new RedisMessageStore(this.factory, "dq", DeadLetterPolicy.DEFAULT);
		this.store.setStoredFormat(storedFormat);
		this.queue = new RedisDelayedQueue(this.store, this.converter);
	}

	static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	public String name() {
		return "delayqueue";
	}

	@Override
	public void schedule(Message message, long delayMillis) {
		this.queue.schedule(TOPIC, message.id(), message.payload(), Duration.ofMillis(delayMillis));
	}

	@Override
	public void scheduleMany(List<Message> messages) {
		List<Future<?>> calls = new ArrayList<>();
		for (int from = 0; from < messages.size(); from += BATCH) {
			List<Message> chunk = messages.subList(from, Math.min(messages.size(), from + BATCH));
			calls.add(this.batchSenders.submit(() -> {
				List<ScheduleRequest> requests = new ArrayList<>(chunk.size());
				for (Message message : chunk) {
					requests.add(ScheduleRequest.builder(TOPIC, message.payload())
						.id(message.id())
						.dueAt(Instant.ofEpochMilli(message.dueAtMillis()))
						.build());
				}
				this.queue.scheduleAll(requests);
			}));
		}
		awaitAll(calls);
	}

	private static void awaitAll(List<Future<?>> futures) {
		for (Future<?> future : futures) {
			try {
				future.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("A batch failed", ex.getCause());
			}
		}
	}

	@Override
	public void scheduleAsync(List<Message> messages, int inFlight) {
		AsyncDelayedQueue async = this.queue.async();
		Semaphore window = new Semaphore(inFlight);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		for (Message message : messages) {
			window.acquireUninterruptibly();
			long delay = Math.max(0, message.dueAtMillis() - System.currentTimeMillis());
			async.schedule(TOPIC, message.id(), message.payload(), Duration.ofMillis(delay))
				.whenComplete((stored, ex) -> {
					if (ex != null) {
						failure.compareAndSet(null, ex);
					}
					window.release();
				});
		}
		window.acquireUninterruptibly(inFlight);
		if (failure.get() != null) {
			throw new IllegalStateException("delayqueue async schedule failed", failure.get());
		}
	}

	@Override
	public boolean hasBatchedApi() {
		return true;
	}

	@Override
	public boolean cancel(Message message) {
		return this.queue.cancel(TOPIC, message.id());
	}

	/**
	 * Times the claim script alone: one message is made due, then claimed (and acknowledged, untimed).
	 * @return the claim's round trip in nanoseconds
	 */
	long claimOneNanos(String id) {
		this.queue.schedule(TOPIC, id, id + "|0", Duration.ZERO);
		long start = System.nanoTime();
		Claim claimed = this.store.leases().claim(TOPIC, 1, 30_000, 10);
		long elapsed = System.nanoTime() - start;
		if (claimed.messages().size() != 1) {
			throw new IllegalStateException("Expected to claim one message, claimed " + claimed.messages().size());
		}
		this.store.leases().ack(TOPIC, List.of(claimed.messages().get(0).lease()));
		return elapsed;
	}

	@Override
	public Consumer consume(int threads, Handler handler) {
		return consume(TOPIC, threads, handler);
	}

	/** An admin of the producers' store (topic controls, for the rate-limit row). */
	RedisMessageStore store() {
		return this.store;
	}

	LettuceConnectionFactory connectionFactory() {
		return this.factory;
	}

	RedisDelayedQueueAdmin admin() {
		return new RedisDelayedQueueAdmin(this.store, this.converter);
	}

	/** The queue the harness schedules with. */
	RedisDelayedQueue queue() {
		return this.queue;
	}

	/**
	 * Consumes a topic as an application instance of its own would: its own connection, wake-up timer and listener
	 * container.
	 */
	Consumer consume(String topic, int threads, Handler handler) {
		return consume(topic, ListenerOptions.builder().concurrency(threads).build(),
				(payload, message) -> handler.handle(payload,
						message.dueAt().getEpochSecond() * 1_000_000 + message.dueAt().getNano() / 1_000));
	}

	/**
	 * Consumes a topic with a handler of any kind ({@link io.github.delayqueue.listener.AsyncDelayedMessageHandler}
	 * included) and the given options, as an application instance of its own would.
	 */
	Consumer consume(String topic, ListenerOptions options, DelayedMessageHandler<String> handler) {
		LettuceConnectionFactory consumerFactory = connectionFactory(this.host, this.port);
		RedisMessageStore consumerStore = new RedisMessageStore(consumerFactory, "dq", DeadLetterPolicy.DEFAULT);
		WakeUpTimer wakeUpTimer = new WakeUpTimer(consumerFactory);
		DelayedListenerContainer container = new DelayedListenerContainer(topic,
				ListenerRegistration.of(topic, String.class, handler, options), consumerStore, this.converter,
				wakeUpTimer);
		wakeUpTimer.start();
		container.start();
		return () -> {
			container.stop();
			wakeUpTimer.stop();
			consumerFactory.destroy();
		};
	}

	@Override
	public void close() {
		this.batchSenders.shutdownNow();
		this.factory.destroy();
	}

}
