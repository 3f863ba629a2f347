package io.github.delayqueue.migration.redisson;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.migration.autoconfigure.RedissonMigrationApplication;
import io.github.delayqueue.migration.autoconfigure.RedissonMigrationAutoConfiguration;
import io.github.delayqueue.migration.autoconfigure.RedissonMigrationRunner;
import io.github.delayqueue.migration.redisson.LegacyOrderTimeout.OrderStatus;
import io.github.delayqueue.payload.PayloadConverter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.JsonJacksonCodec;

import org.springframework.boot.DefaultApplicationArguments;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The migration against Redisson 4.7 itself: messages offered through Redisson's {@code RDelayedQueue} (some due
 * and moved to the destination queue, some due but not moved, some waiting), the Redisson client shut down, the
 * migration run, and a {@code @DelayedListener} receiving every message once, never before its original due time;
 * a second run schedules nothing; bad input changes nothing.
 */
class RedissonDelayedQueueMigrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	/** A redis-server process of the test's own: never a shared server, never Docker. */
	private static final TestRedis redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();

	private static final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
		.withUserConfiguration(Listeners.class)
		.withPropertyValues(redisProperties());

	@BeforeEach
	void clear() {
		redis.flush();
		deliveries.clear();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void jsonJacksonCodecMessagesArriveOnceNeverBeforeTheirDueTimeAndASecondRunSchedulesNothing() {
		Map<String, Long> earliestDue = new ConcurrentHashMap<>();
		Map<String, Long> latestDue = new ConcurrentHashMap<>();
		try (RedissonQueues redisson = RedissonQueues.connect(redis, new JsonJacksonCodec())) {
			// due at once: Redisson's transfer task moves them to the destination queue before the client stops
			offer(redisson, "order-0", Duration.ZERO, earliestDue, latestDue);
			offer(redisson, "order-1", Duration.ZERO, earliestDue, latestDue);
			offer(redisson, "order-2", Duration.ZERO, earliestDue, latestDue);
			await().atMost(WAIT).until(() -> redisson.due("orders") == 3);
			// due before the migration runs, not moved (the client stops first)
			offer(redisson, "order-3", Duration.ofSeconds(1), earliestDue, latestDue);
			offer(redisson, "order-4", Duration.ofSeconds(1), earliestDue, latestDue);
			// waiting when the migration runs: their due times are kept exactly
			for (int i = 5; i < 10; i++) {
				offer(redisson, "order-" + i, Duration.ofMillis(6_000 + 250 * i), earliestDue, latestDue);
			}
		}
		this.application.run((context) -> {
			assertThat(RedissonMigrationApplication.run(migrationArguments("orders", "order-timeout",
					"JsonJacksonCodec"))).isZero();
			await().atMost(WAIT.plusSeconds(30)).until(() -> deliveries.size() == 10);

			assertThat(deliveries).allSatisfy((orderId, received) -> {
				assertThat(received).as("%s is delivered once", orderId).hasSize(1);
				Delivery delivery = received.get(0);
				assertThat(delivery.payload()).isEqualTo(new OrderTimeout(orderId, new BigDecimal("42.50"),
						List.of("vip", "eu"), 7L, OrderStatus.PENDING_PAYMENT, Map.of("channel", "web", "retries", 3)));
				assertThat(delivery.message().id()).startsWith("redisson-");
				assertThat(delivery.message().headers()).containsEntry("migrated-from", "redisson:orders");
				assertThat(delivery.message().dueAt().toEpochMilli()).as("%s is due no earlier than Redisson said",
						orderId).isGreaterThanOrEqualTo(earliestDue.get(orderId));
				assertThat(delivery.receivedAtMillis()).as("%s is never delivered early", orderId)
					.isGreaterThanOrEqualTo(earliestDue.get(orderId))
					.isGreaterThanOrEqualTo(delivery.message().dueAt().toEpochMilli());
			});
			for (int i = 5; i < 10; i++) {
				Instant dueAt = deliveries.get("order-" + i).get(0).message().dueAt();
				assertThat(dueAt.toEpochMilli()).as("a waiting message keeps its due time")
					.isBetween(earliestDue.get("order-" + i), latestDue.get("order-" + i));
			}

			MigrationReport again = migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
					RedissonCodec.JSON_JACKSON_CODEC));
			assertThat(again.found()).isEqualTo(10);
			assertThat(again.due()).isGreaterThanOrEqualTo(3);
			assertThat(again.alreadyMigrated()).isEqualTo(10);
			assertThat(again.scheduled()).isZero();
			assertThat(again.existing()).isZero();
			assertThat(context.getBean(DelayedQueueAdmin.class).stats("order-timeout").waiting()).isZero();
			await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
				.until(() -> deliveries.values().stream().allMatch((received) -> received.size() == 1));
		});
	}

	@Test
	void stringCodecMessagesArriveAsOfferedAndRemovingTheMigratedLeavesRedissonEmpty() {
		List<String> offered = List.of("remind alice", "remind alice", "{\"json\": \"stays a string\"}", "żółw 🐢",
				"");
		try (RedissonQueues redisson = RedissonQueues.connect(redis, StringCodec.INSTANCE)) {
			redisson.offer("reminders", offered.get(0), Duration.ZERO);
			await().atMost(WAIT).until(() -> redisson.due("reminders") == 1);
			for (int i = 1; i < offered.size(); i++) {
				redisson.offer("reminders", offered.get(i), Duration.ofMillis(500 * i));
			}
		}
		this.application.run((context) -> {
			MigrationRequest request = MigrationRequest.of("reminders", "reminders", RedissonCodec.STRING_CODEC)
				.withBatchSize(2)
				.removingMigrated();
			MigrationReport report = migration(context).migrate(request);
			assertThat(report.found()).isEqualTo(5);
			assertThat(report.scheduled()).isEqualTo(5);
			assertThat(report.removed()).isEqualTo(5);
			assertThat(redis.call("EXISTS", "reminders", "redisson_delay_queue_timeout:{reminders}",
					"redisson_delay_queue:{reminders}")).isEqualTo("0");

			await().atMost(WAIT).until(() -> received("reminders").size() == 5);
			// Spring's payload resolution hands an empty string to an optional @Payload as null
			assertThat(received("reminders")).containsExactlyInAnyOrder("remind alice", "remind alice",
					"{\"json\": \"stays a string\"}", "żółw 🐢", null);

			MigrationReport again = migration(context).migrate(request);
			assertThat(again.found()).isZero();
			assertThat(again.removed()).isZero();
			await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
				.until(() -> received("reminders").size() == 5);
		});
	}

	@Test
	void theRunnerExistsOnlyWhenEnabled() {
		this.application.withConfiguration(AutoConfigurations.of(RedissonMigrationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasSingleBean(DelayedQueue.class)
				.doesNotHaveBean(RedissonMigrationRunner.class));
		this.application.withConfiguration(AutoConfigurations.of(RedissonMigrationAutoConfiguration.class))
			.withPropertyValues("delayqueue.migration.redisson.enabled=true",
					"delayqueue.migration.redisson.queue=orders", "delayqueue.migration.redisson.topic=order-timeout",
					"delayqueue.migration.redisson.codec=StringCodec")
			.run((context) -> {
				// a context runner calls no ApplicationRunner: SpringApplication does (the main class's test)
				RedissonMigrationRunner runner = context.getBean(RedissonMigrationRunner.class);
				runner.run(new DefaultApplicationArguments());
				assertThat(runner.getReport())
					.isEqualTo(new MigrationReport("orders", "order-timeout", 0, 0, 0, 0, 0, 0));
			});
	}

	@Test
	void anUnsupportedCodecIsNamedAndChangesNothing() {
		try (RedissonQueues redisson = RedissonQueues.connect(redis, StringCodec.INSTANCE)) {
			redisson.offer("orders", "a", Duration.ofMinutes(5));
		}
		String before = keys();

		assertThatIllegalArgumentException().isThrownBy(() -> RedissonCodec.named("org.redisson.codec.Kryo5Codec"))
			.withMessageStartingWith("Redisson codec 'org.redisson.codec.Kryo5Codec' is not supported")
			.withMessageContaining("StringCodec (org.redisson.client.codec.StringCodec)")
			.withMessageContaining("JsonJacksonCodec (org.redisson.codec.JsonJacksonCodec)");
		assertThat(RedissonMigrationApplication.run(migrationArguments("orders", "order-timeout", "NoSuchCodec")))
			.isNotZero();

		assertThat(keys()).isEqualTo(before);
		assertThat(redis.call("ZCARD", "redisson_delay_queue_timeout:{orders}")).isEqualTo("1");
	}

	@Test
	void elementsAnotherCodecWroteStopTheMigrationBeforeAnythingIsWritten() {
		try (RedissonQueues redisson = RedissonQueues.connect(redis, ByteArrayCodec.INSTANCE)) {
			redisson.offer("orders", "{\"fine\": true}".getBytes(), Duration.ofMinutes(5));
			redisson.offer("orders", new byte[] { (byte) 0xac, (byte) 0xed, 0, 5 }, Duration.ofMinutes(6));
		}
		String before = keys();
		this.application.run((context) -> {
			assertThatExceptionOfType(RedissonMigrationException.class)
				.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
						RedissonCodec.JSON_JACKSON_CODEC)))
				.withMessageStartingWith("Element 1 of redisson_delay_queue_timeout:{orders} cannot be read as "
						+ "JsonJacksonCodec: the value is not JSON");
			assertThatExceptionOfType(RedissonMigrationException.class)
				.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
						RedissonCodec.STRING_CODEC)))
				.withMessageStartingWith("Element 1 of redisson_delay_queue_timeout:{orders} cannot be read as "
						+ "StringCodec: the value is not UTF-8 text");
			assertThat(context.getBean(DelayedQueueAdmin.class).stats("order-timeout").waiting()).isZero();
		});
		assertThat(redis.call("EXISTS", "delayqueue_migrated:{orders}")).isEqualTo("0");
		assertThat(keys()).isEqualTo(before);
	}

	@Test
	void aRedissonClientStillHoldingTheQueueStopsTheMigration() {
		try (RedissonQueues redisson = RedissonQueues.connect(redis, StringCodec.INSTANCE)) {
			redisson.offer("orders", "a", Duration.ofMinutes(5));
			this.application.run((context) -> assertThatExceptionOfType(RedissonMigrationException.class)
				.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
						RedissonCodec.STRING_CODEC)))
				.withMessageContaining("still subscribe to redisson_delay_queue_channel:{orders}")
				.withMessageEndingWith("Nothing was written"));
		}
		assertThat(redis.call("EXISTS", "delayqueue_migrated:{orders}")).isEqualTo("0");
		assertThat(redis.call("ZCARD", "redisson_delay_queue_timeout:{orders}")).isEqualTo("1");
	}

	@Test
	void insideATransactionItRefusesBeforeReadingAnything() {
		this.application.run((context) -> {
			TransactionSynchronizationManager.initSynchronization();
			try {
				assertThatIllegalStateException()
					.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
							RedissonCodec.STRING_CODEC)))
					.withMessageStartingWith("Run the migration outside a transaction");
			}
			finally {
				TransactionSynchronizationManager.clearSynchronization();
			}
		});
	}

	private static void offer(RedissonQueues redisson, String orderId, Duration delay, Map<String, Long> earliest,
			Map<String, Long> latest) {
		LegacyOrderTimeout payload = new LegacyOrderTimeout(orderId, new BigDecimal("42.50"),
				new ArrayList<>(List.of("vip", "eu")), 7L, OrderStatus.PENDING_PAYMENT);
		earliest.put(orderId, redisson.offer("orders", payload, delay));
		latest.put(orderId, System.currentTimeMillis() + delay.toMillis());
	}

	private static RedissonDelayedQueueMigration migration(AssertableApplicationContext context) {
		return new RedissonDelayedQueueMigration(context.getBean(RedisConnectionFactory.class),
				context.getBean(DelayedQueue.class), context.getBean(PayloadConverter.class));
	}

	private static List<@Nullable Object> received(String topic) {
		return deliveries.values()
			.stream()
			.flatMap(List::stream)
			.filter((delivery) -> delivery.message().topic().equals(topic))
			.map(Delivery::payload)
			.toList();
	}

	/** Every key but delayqueue's own (an application's start writes some), with its type and size. */
	private static String keys() {
		StringBuilder keys = new StringBuilder();
		for (String key : redis.call("KEYS", "*").lines().filter((key) -> !key.startsWith("dq:")).sorted().toList()) {
			String type = redis.call("TYPE", key);
			String size = switch (type) {
				case "zset" -> redis.call("ZCARD", key);
				case "list" -> redis.call("LLEN", key);
				case "set" -> redis.call("SCARD", key);
				case "hash" -> redis.call("HLEN", key);
				default -> "";
			};
			keys.append(key).append(' ').append(type).append(' ').append(size).append('\n');
		}
		return keys.toString();
	}

	private static String[] redisProperties() {
		return new String[] { "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"spring.data.redis.database=" + redis.database() };
	}

	private static String[] migrationArguments(String queue, String topic, String codec) {
		List<String> arguments = new ArrayList<>();
		for (String property : redisProperties()) {
			arguments.add("--" + property);
		}
		arguments.add("--delayqueue.migration.redisson.queue=" + queue);
		arguments.add("--delayqueue.migration.redisson.topic=" + topic);
		arguments.add("--delayqueue.migration.redisson.codec=" + codec);
		return arguments.toArray(String[]::new);
	}

	/** What the new consumers read the payload as. */
	record OrderTimeout(String orderId, BigDecimal amount, List<String> tags, Long attempt, OrderStatus status,
			Map<String, Object> extra) {
	}

	/** One delivery, with the local clock's time of it (the test's Redis runs on the same machine). */
	record Delivery(@Nullable Object payload, DeliveredMessage message, long receivedAtMillis) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	static class Recorder {

		@DelayedListener(topic = "order-timeout")
		void onOrderTimeout(OrderTimeout payload, DeliveredMessage message) {
			record(payload.orderId(), payload, message);
		}

		// an empty string is a payload Spring's @Payload refuses unless it is optional
		@DelayedListener(topic = "reminders")
		void onReminder(@Payload(required = false) @Nullable String payload, DeliveredMessage message) {
			record(message.id(), payload, message);
		}

		private static void record(String key, @Nullable Object payload, DeliveredMessage message) {
			deliveries.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>())
				.add(new Delivery(payload, message, System.currentTimeMillis()));
		}

	}

}
