package io.github.delayqueue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Builds the library's parts against a {@link TestRedis} server, and tears them all down.
 */
public final class RedisFixture implements AutoCloseable {

	public static final String PREFIX = "dqtest";

	private final TestRedis redis;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final PayloadConverter converter = PayloadConverter.json();

	public RedisFixture(TestRedis redis) {
		this.redis = redis;
	}

	/**
	 * The keys a topic's messages occupy in Redis now (its {@code pending}, {@code leased}, {@code body:<n>}, ...
	 * keys). Keys that outlive the messages on purpose are not listed: the set of known topics
	 * ({@code <prefix>:topics}), the topic's {@code meta} hash, whose lease-token counter must never restart, and its
	 * {@code claims} hash (each consumer's last claim, forgotten by the upkeep once that claim's lease has ended).
	 */
	public static List<String> keysOf(TestRedis redis, String topic) {
		String reply = redis.call("KEYS", PREFIX + ":{" + topic + "}:*");
		return (reply == null || reply.isEmpty()) ? List.of()
				: java.util.Arrays.stream(reply.split("\n"))
					.filter((key) -> !key.endsWith("}:meta") && !key.endsWith("}:claims"))
					.toList();
	}

	/** Lists a topic's waiting plain messages: its pending set's, then its pages' (stored format 5). */
	private static final String WAITING = """
			local base = string.sub(KEYS[1], 1, -8)
			local out = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
			for _, m in ipairs(redis.call('ZRANGE', base .. 'pages', 0, -1)) do
			  for _, v in ipairs(redis.call('ZRANGE', base .. 'p:' .. string.match(m, '%z(%d+)$'), 0, -1, 'WITHSCORES')) do
			    out[#out + 1] = v
			  end
			end
			return out
			""";

	/**
	 * The plain messages (no group, the default priority) waiting in a topic, whether in its pending set or in its
	 * pages (stored format 5): id -> due score as Redis writes it, by due time, then id.
	 * @param redis the server (a replica too: the script only reads)
	 * @param pendingKey the topic's pending key, such as {@code dqtest:{orders}:pending}
	 */
	public static java.util.LinkedHashMap<String, String> waiting(TestRedis redis, String pendingKey) {
		return waiting(redis::call, pendingKey);
	}

	/**
	 * {@link #waiting(TestRedis, String)} through any way of sending a command (a cluster's node, a replica).
	 * @param call sends a command, answers as {@link TestRedis#call(String...)} does
	 * @param pendingKey the topic's pending key
	 */
	public static java.util.LinkedHashMap<String, String> waiting(
			java.util.function.Function<String[], String> call, String pendingKey) {
		String reply = call.apply(new String[] { "EVAL", WAITING, "1", pendingKey });
		List<String[]> entries = new ArrayList<>();
		if (reply != null && !reply.isEmpty()) {
			String[] lines = reply.split("\n");
			for (int i = 0; i + 1 < lines.length; i += 2) {
				entries.add(new String[] { lines[i], lines[i + 1] });
			}
		}
		entries.sort(java.util.Comparator.<String[]>comparingDouble((e) -> Double.parseDouble(e[1]))
			.thenComparing((e) -> e[0]));
		java.util.LinkedHashMap<String, String> waiting = new java.util.LinkedHashMap<>();
		for (String[] entry : entries) {
			waiting.put(entry[0], entry[1]);
		}
		return waiting;
	}

	/** The Redis server's clock now ({@code TIME}), to the microsecond. */
	public Instant redisTime() {
		String[] time = this.redis.call("TIME").split("\n");
		return Instant.ofEpochSecond(Long.parseLong(time[0])).plus(Long.parseLong(time[1]), ChronoUnit.MICROS);
	}

	public LettuceConnectionFactory connectionFactory() {
		return connectionFactory(this.redis.host(), this.redis.port());
	}

	/** A connection factory for the fixture's server reached at another address (a proxy in front of it). */
	public LettuceConnectionFactory connectionFactory(String host, int port) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host, port);
		configuration.setDatabase(this.redis.database());
		if (this.redis.password() != null) {
			configuration.setPassword(this.redis.password());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.closeables.add(factory::destroy);
		return factory;
	}

	/**
	 * Records what is published on a topic's wake channel from now on, until the fixture closes.
	 * @return the messages (delays in ms, as text) in the order they arrived
	 */
	public List<String> recordWakes(String topic) {
		List<String> wakes = new CopyOnWriteArrayList<>();
		RedisConnection subscriber = connectionFactory().getConnection();
		subscriber.subscribe((message, pattern) -> wakes.add(new String(message.getBody(), StandardCharsets.UTF_8)),
				(PREFIX + ":{" + topic + "}:wake").getBytes(StandardCharsets.UTF_8));
		// closed before the connection factories
		this.closeables.add(0, subscriber::close);
		return wakes;
	}

	public RedisMessageStore store(LettuceConnectionFactory factory) {
		return new RedisMessageStore(factory, PREFIX, DeadLetterPolicy.DEFAULT);
	}

	public RedisDelayedQueue queue(RedisMessageStore store) {
		return new RedisDelayedQueue(store, this.converter);
	}

	/** The admin of a store, as Spring Boot's {@code DelayedQueueAdmin} bean is the application's one admin. */
	public RedisDelayedQueueAdmin admin(RedisMessageStore store) {
		return new RedisDelayedQueueAdmin(store, this.converter);
	}

	public PayloadConverter converter() {
		return this.converter;
	}

	/** A running scheduler and listener registry with their own connection factory. */
	public Consumer consumer() {
		return consumer(connectionFactory());
	}

	/** A running scheduler and listener registry on the given connection factory. */
	public Consumer consumer(LettuceConnectionFactory factory) {
		return consumer(factory, (container) -> {
		});
	}

	/** A running scheduler and listener registry, whose container factory is customised before it starts. */
	public Consumer consumer(LettuceConnectionFactory factory,
			java.util.function.Consumer<DefaultDelayedListenerContainerFactory> customizer) {
		return consumer(factory, customizer, Duration.ofMillis(200));
	}

	/**
	 * A running scheduler and listener registry whose fallback poll is the given one (a long one shows that
	 * consumers are woken, not polled).
	 */
	public Consumer consumer(LettuceConnectionFactory factory,
			java.util.function.Consumer<DefaultDelayedListenerContainerFactory> customizer, Duration fallbackPoll) {
		RedisMessageStore store = store(factory);
		WakeUpTimer scheduler = new WakeUpTimer(factory, Duration.ofMillis(5),
				fallbackPoll);
		DefaultDelayedListenerContainerFactory containerFactory = new DefaultDelayedListenerContainerFactory(store,
				this.converter, scheduler);
		containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(2));
		containerFactory.setAdmin(admin(store));
		customizer.accept(containerFactory);
		Listeners listeners = new Listeners(containerFactory);
		scheduler.start();
		listeners.start();
		Consumer consumer = new Consumer(factory, store, scheduler, listeners);
		this.closeables.add(0, consumer);
		return consumer;
	}

	@Override
	public void close() {
		for (AutoCloseable closeable : this.closeables) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
		this.closeables.clear();
	}

	public record Consumer(LettuceConnectionFactory connectionFactory, RedisMessageStore store,
			WakeUpTimer scheduler, Listeners listeners) implements AutoCloseable {

		@Override
		public void close() {
			this.listeners.stop();
			this.scheduler.stop();
		}

	}

}
