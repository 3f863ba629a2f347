package io.github.delayqueue.faults;

import java.time.Duration;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A worker's delayqueue listener, set up as the README shows for use without Spring Boot; its handler works
 * {@code handler-ms}, then records the message; a {@code throw} poison throws, a {@code crash} poison halts the JVM.
 */
final class DelayQueueConsumer implements AutoCloseable {

	static final String TOPIC = "faults";

	static final String PREFIX = "dq";

	private final LettuceConnectionFactory connectionFactory;

	private final WakeUpTimer scheduler;

	private final DelayedListenerContainer container;

	DelayQueueConsumer(Worker.Settings settings, Ledger.Writer ledger) {
		this.connectionFactory = connectionFactory(settings.port(), Duration.ofMillis(settings.timeoutMillis()));
		long offset = settings.calibrate() ? clockOffset(this.connectionFactory) : 0;
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, PREFIX, DeadLetterPolicy.DEFAULT);
		this.scheduler = new WakeUpTimer(this.connectionFactory);
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(settings.concurrency())
			.visibilityTimeout(Duration.ofMillis(settings.leaseMillis()))
			.maxAttempts(settings.maxAttempts())
			.errorHandler(new DefaultDeliveryErrorHandler(
				DefaultDeliveryErrorHandler.exponentialBackOff(Duration.ofMillis(100), 2, Duration.ofSeconds(1))))
			.build();
		this.container = new DelayedListenerContainer(TOPIC,
				ListenerRegistration.of(TOPIC, Work.class, (Work work, DeliveredMessage message) -> {
					long startedAt = System.currentTimeMillis() + offset;
					if (Work.CRASH.equals(work.kind())) {
						Runtime.getRuntime().halt(3);
					}
					if (Work.THROW.equals(work.kind())) {
						throw new IllegalStateException("poison message " + work.key());
					}
					Thread.sleep(settings.handlerMillis());
					ledger.record(work.key(), message.attempt(), startedAt, message.redelivered());
				}, options), store, new JacksonPayloadConverter(), this.scheduler);
		this.scheduler.start();
		this.container.start();
	}

	static LettuceConnectionFactory connectionFactory(int port, Duration timeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(timeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * How far the Redis server's clock is ahead of this JVM's (negative: behind): the round trip of several, after the
	 * connection is up, that took least, read at its midpoint. A single first call also paid for connecting (and, on a
	 * busy machine, for waiting for a core), which put its midpoint hundreds of milliseconds off the moment Redis read
	 * its clock, and every start time recorded with it that far off (counted early, or late).
	 */
	static long clockOffset(LettuceConnectionFactory connectionFactory) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			connection.ping();
			long bestRoundTrip = Long.MAX_VALUE;
			long offset = 0;
			for (int i = 0; i < 20; i++) {
				long before = System.currentTimeMillis();
				long beforeNanos = System.nanoTime();
				Long server = connection.serverCommands().time();
				long roundTrip = System.nanoTime() - beforeNanos;
				long after = System.currentTimeMillis();
				if (server != null && roundTrip < bestRoundTrip) {
					bestRoundTrip = roundTrip;
					offset = server - (before + after) / 2;
				}
			}
			return offset;
		}
	}

	@Override
	public void close() {
		this.container.stop();
		this.scheduler.stop();
		this.connectionFactory.destroy();
	}

}
