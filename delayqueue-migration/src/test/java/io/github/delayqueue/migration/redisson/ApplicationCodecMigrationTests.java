package io.github.delayqueue.migration.redisson;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.payload.PayloadConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The migration with the application's own Redisson codec: values written by Redisson 4.7 with its default codec,
 * {@code Kryo5Codec}, holding an application's record, decoded with that codec and stored as JSON payloads that a
 * {@code @DelayedListener} and a look-up read with their due times; a queue larger than one page migrated page by
 * page with its progress logged; a second run moving nothing; a value the payload converter cannot store stopping
 * it before anything is written.
 */
class ApplicationCodecMigrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	/** A redis-server process of the test's own: never a shared server, never Docker. */
	private static final TestRedis redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();

	private static final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
		.withUserConfiguration(Listeners.class)
		.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"spring.data.redis.database=" + redis.database());

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	@BeforeEach
	void clear() {
		redis.flush();
		deliveries.clear();
		this.log.start();
		migrationLogger().addAppender(this.log);
	}

	@AfterEach
	void stopCapturing() {
		migrationLogger().detachAppender(this.log);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void kryo5CodecRecordsArriveWithTheirDueTimesAndASecondRunMovesNothing() {
		Map<String, Long> earliestDue = new ConcurrentHashMap<>();
		Map<String, Long> latestDue = new ConcurrentHashMap<>();
		try (RedissonQueues redisson = RedissonQueues.connectWithDefaultCodec(redis)) {
			assertThat(redisson.codec()).as("Redisson's default codec").isInstanceOf(Kryo5Codec.class);
			// due at once: moved to the destination queue by Redisson's transfer task before the client stops
			offer(redisson, "order-0", Duration.ZERO, earliestDue, latestDue);
			await().atMost(WAIT).until(() -> redisson.due("orders") == 1);
			// waiting when the migration runs: delivered after a few seconds, and one an hour away
			offer(redisson, "order-1", Duration.ofSeconds(4), earliestDue, latestDue);
			offer(redisson, "order-2", Duration.ofSeconds(5), earliestDue, latestDue);
			offer(redisson, "order-3", Duration.ofHours(1), earliestDue, latestDue);
		}
		this.application.run((context) -> {
			MigrationRequest request = MigrationRequest.of("orders", "order-timeout",
					ApplicationCodec.of(new Kryo5Codec()));
			MigrationReport report = migration(context).migrate(request);
			assertThat(report).isEqualTo(new MigrationReport("orders", "order-timeout", 3, 1, 4, 0, 0, 0));

			await().atMost(WAIT).until(() -> deliveries.size() == 3);
			assertThat(deliveries).allSatisfy((orderId, received) -> {
				assertThat(received).as("%s is delivered once", orderId).hasSize(1);
				Delivery delivery = received.get(0);
				assertThat(delivery.payload()).isEqualTo(order(orderId));
				assertThat(delivery.message().headers()).containsEntry("migrated-from", "redisson:orders");
				assertThat(delivery.receivedAtMillis()).as("%s is never delivered early", orderId)
					.isGreaterThanOrEqualTo(earliestDue.get(orderId));
			});
			for (String orderId : List.of("order-1", "order-2")) {
				assertThat(deliveries.get(orderId).get(0).message().dueAt().toEpochMilli())
					.as("%s keeps its due time", orderId)
					.isBetween(earliestDue.get(orderId), latestDue.get(orderId));
			}
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			List<MessageInfo> waiting = admin.listWaiting("order-timeout", WaitingQuery.first(10)).messages();
			assertThat(waiting).singleElement().satisfies((message) -> {
				assertThat(message.payload(KryoOrder.class)).isEqualTo(order("order-3"));
				assertThat(message.dueAt()).isNotNull();
				assertThat(message.dueAt().toEpochMilli()).isBetween(earliestDue.get("order-3"),
						latestDue.get("order-3"));
				assertThat(admin.lookup("order-timeout", message.id())).isPresent();
			});

			MigrationReport again = migration(context).migrate(request);
			assertThat(again.found()).isEqualTo(4);
			assertThat(again.alreadyMigrated()).isEqualTo(4);
			assertThat(again.scheduled()).isZero();
			assertThat(again.existing()).isZero();
			assertThat(admin.stats("order-timeout").waiting()).isOne();
			await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
				.until(() -> deliveries.values().stream().allMatch((received) -> received.size() == 1));
		});
	}

	@Test
	void aQueueLargerThanOnePageMigratesPageByPageLoggingItsProgressAndOnlyOnce() {
		int elements = 2 * MigrationRequest.DEFAULT_BATCH_SIZE + 234;
		try (RedissonQueues redisson = RedissonQueues.connectWithDefaultCodec(redis)) {
			redisson.offerAll("orders", elements, (i) -> order("order-" + i), (i) -> Duration.ofHours(1).plusMillis(i));
		}
		this.application.run((context) -> {
			MigrationRequest request = MigrationRequest.of("orders", "order-timeout",
					ApplicationCodec.of(new Kryo5Codec()));
			MigrationReport report = migration(context).migrate(request);
			assertThat(report.delayed()).isEqualTo(elements);
			assertThat(report.scheduled()).isEqualTo(elements);
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			assertThat(admin.stats("order-timeout").waiting()).isEqualTo(elements);
			assertThat(progress()).containsExactly(
					"Redisson queue 'orders': read and checked 500 of 1234 elements (40%)",
					"Redisson queue 'orders': read and checked 1000 of 1234 elements (81%)",
					"Redisson queue 'orders': read and checked 1234 of 1234 elements (100%)",
					"Redisson queue 'orders': scheduled or skipped 500 of 1234 elements (40%)",
					"Redisson queue 'orders': scheduled or skipped 1000 of 1234 elements (81%)",
					"Redisson queue 'orders': scheduled or skipped 1234 of 1234 elements (100%)");
			List<KryoOrder> migrated = new ArrayList<>();
			MessagePage page = admin.listWaiting("order-timeout", WaitingQuery.first(WaitingQuery.MAX_LIMIT));
			while (true) {
				page.messages().forEach((message) -> migrated.add(message.payload(KryoOrder.class)));
				if (page.nextCursor() == null) {
					break;
				}
				page = admin.listWaiting("order-timeout",
						WaitingQuery.first(WaitingQuery.MAX_LIMIT).after(page.nextCursor()));
			}
			assertThat(migrated).as("every element, in due order")
				.isEqualTo(IntStream.range(0, elements).mapToObj((i) -> order("order-" + i)).toList());

			MigrationReport again = migration(context).migrate(request);
			assertThat(again.alreadyMigrated()).isEqualTo(elements);
			assertThat(again.scheduled()).isZero();
			assertThat(admin.stats("order-timeout").waiting()).isEqualTo(elements);
			assertThat(redis.call("SCARD", "delayqueue_migrated:{orders}")).isEqualTo(String.valueOf(elements));
		});
	}

	@Test
	void serializationCodecWithAnAllowListReadsItsValues() {
		Set<String> allowed = Set.of(SerializableReminder.class.getName());
		try (RedissonQueues redisson = RedissonQueues.connect(redis, new SerializationCodec())) {
			redisson.offer("reminders", new SerializableReminder("alice", 3), Duration.ofHours(2));
		}
		this.application.run((context) -> {
			MigrationReport report = migration(context).migrate(MigrationRequest.of("reminders", "reminders",
					ApplicationCodec.of(new SerializationCodec(getClass().getClassLoader(), allowed))));
			assertThat(report.scheduled()).isOne();
			MessageInfo message = context.getBean(DelayedQueueAdmin.class)
				.listWaiting("reminders", WaitingQuery.first(1))
				.messages()
				.get(0);
			assertThat(message.payloadAsString()).isEqualTo("{\"user\":\"alice\",\"times\":3}");
		});
	}

	@Test
	void aValueThePayloadConverterCannotStoreStopsItBeforeAnythingIsWritten() {
		try (RedissonQueues redisson = RedissonQueues.connectWithDefaultCodec(redis)) {
			redisson.offer("orders", order("order-0"), Duration.ofHours(1));
			redisson.offer("orders", new Opaque("no properties Jackson can see"), Duration.ofHours(2));
		}
		this.application.run((context) -> {
			assertThatExceptionOfType(RedissonMigrationException.class)
				.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
						ApplicationCodec.of(new Kryo5Codec()))))
				.withMessageStartingWith("Element 1 of redisson_delay_queue_timeout:{orders} was read as "
						+ Opaque.class.getName() + ", which ")
				// Jackson 3 (Boot 4) writes a bean without properties as {}, Jackson 2 (Boot 3.5) refuses it
				.satisfies((ex) -> assertThat(ex.getMessage()).containsAnyOf("the payload converter writes as {}",
						"cannot be stored as a payload"))
				.withMessageEndingWith("Nothing was written");
			assertThat(context.getBean(DelayedQueueAdmin.class).stats("order-timeout").waiting()).isZero();
		});
		assertThat(redis.call("EXISTS", "delayqueue_migrated:{orders}")).isEqualTo("0");
		assertThat(redis.call("ZCARD", "redisson_delay_queue_timeout:{orders}")).isEqualTo("2");
	}

	@Test
	void valuesAnotherCodecWroteStopItBeforeAnythingIsWritten() {
		try (RedissonQueues redisson = RedissonQueues.connect(redis, new SerializationCodec())) {
			redisson.offer("orders", new SerializableReminder("alice", 3), Duration.ofHours(1));
		}
		this.application.run((context) -> assertThatExceptionOfType(RedissonMigrationException.class)
			.isThrownBy(() -> migration(context).migrate(MigrationRequest.of("orders", "order-timeout",
					ApplicationCodec.of(new Kryo5Codec()))))
			.withMessageStartingWith("Element 0 of redisson_delay_queue_timeout:{orders} cannot be read as "
					+ "Kryo5Codec: the codec cannot decode the value"));
		assertThat(redis.call("EXISTS", "delayqueue_migrated:{orders}")).isEqualTo("0");
	}

	private static KryoOrder order(String orderId) {
		return new KryoOrder(orderId, new BigDecimal("42.50"), new ArrayList<>(List.of("vip", "eu")),
				Instant.parse("2026-11-27T09:00:00Z"));
	}

	private static void offer(RedissonQueues redisson, String orderId, Duration delay, Map<String, Long> earliest,
			Map<String, Long> latest) {
		earliest.put(orderId, redisson.offer("orders", order(orderId), delay));
		latest.put(orderId, System.currentTimeMillis() + delay.toMillis());
	}

	private List<String> progress() {
		return this.log.list.stream()
			.map(ILoggingEvent::getFormattedMessage)
			.filter((message) -> message.contains(" of 1234 elements"))
			.map((message) -> message.substring(0, message.indexOf(" in ")))
			.toList();
	}

	private static Logger migrationLogger() {
		return (Logger) LoggerFactory.getLogger(RedissonDelayedQueueMigration.class);
	}

	private static RedissonDelayedQueueMigration migration(AssertableApplicationContext context) {
		return new RedissonDelayedQueueMigration(context.getBean(RedisConnectionFactory.class),
				context.getBean(DelayedQueue.class), context.getBean(PayloadConverter.class));
	}

	/** The application's own record, written by Kryo and read back by the new listener. */
	record KryoOrder(String orderId, BigDecimal amount, List<String> tags, Instant placedAt) {
	}

	/** A value Java serialisation writes. */
	record SerializableReminder(String user, int times) implements Serializable {
	}

	/** A value Kryo writes and Jackson cannot: no property it can see. */
	static final class Opaque {

		private final String secret;

		Opaque(String secret) {
			this.secret = secret;
		}

		@Override
		public String toString() {
			return "Opaque[" + this.secret.length() + "]";
		}

	}

	/** One delivery, with the local clock's time of it (the test's Redis runs on the same machine). */
	record Delivery(KryoOrder payload, DeliveredMessage message, long receivedAtMillis) {
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
		void onOrderTimeout(KryoOrder payload, DeliveredMessage message) {
			deliveries.computeIfAbsent(payload.orderId(), (k) -> new CopyOnWriteArrayList<>())
				.add(new Delivery(payload, message, System.currentTimeMillis()));
		}

	}

}
