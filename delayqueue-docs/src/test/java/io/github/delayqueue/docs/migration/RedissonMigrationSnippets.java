package io.github.delayqueue.docs.migration;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.migration.redisson.ApplicationCodec;
import io.github.delayqueue.migration.redisson.MigrationReport;
import io.github.delayqueue.migration.redisson.MigrationRequest;
import io.github.delayqueue.migration.redisson.RedissonCodec;
import io.github.delayqueue.migration.redisson.RedissonDelayedQueueMigration;
import io.github.delayqueue.migration.redisson.ValueDecoder;
import io.github.delayqueue.payload.PayloadConverter;
import org.redisson.codec.Kryo5Codec;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The migration guides' snippets: the side of the change that uses delayqueue. */
class RedissonMigrationSnippets {

	private final DelayedQueue queue;

	private final OrderBook orders;

	RedissonMigrationSnippets(DelayedQueue queue, OrderBook orders) {
		this.queue = queue;
		this.orders = orders;
	}

	void afterRedisson(String orderId) {
		// tag::after-redisson[]
		queue.schedule("order-timeout", orderId, new OrderTimeout(orderId), Duration.ofMinutes(30));
		// end::after-redisson[]
	}

	// tag::after-listener[]
	@DelayedListener(topic = "order-timeout")
	void onTimeout(OrderTimeout timeout) {
		orders.cancelIfUnpaid(timeout.orderId());
	}
	// end::after-listener[]

	void afterRabbit(String orderId) {
		// tag::after-rabbit[]
		queue.schedule(ScheduleRequest.builder("order-timeout", new OrderTimeout(orderId))
			.id("order-" + orderId)                     // so that paying the order can cancel it
			.delay(Duration.ofMinutes(30))
			.build());
		// end::after-rabbit[]
	}

	MigrationReport inCode(RedisConnectionFactory connectionFactory, DelayedQueue delayedQueue,
			PayloadConverter payloadConverter) {
		// tag::migrate[]
		MigrationReport report = new RedissonDelayedQueueMigration(connectionFactory, delayedQueue, payloadConverter)
			.migrate(MigrationRequest.of("orders", "order-timeout", RedissonCodec.JSON_JACKSON_CODEC));
		// end::migrate[]
		return report;
	}

	MigrationReport withTheApplicationsCodec(RedissonDelayedQueueMigration migration) {
		// tag::migrate-kryo[]
		MigrationReport report = migration.migrate(MigrationRequest.of("orders", "order-timeout",
				ApplicationCodec.of(new Kryo5Codec())));        // Redisson's default codec, as the queue was written
		// end::migrate-kryo[]
		return report;
	}

	@Configuration(proxyBeanMethods = false)
	static class LegacyCodecConfiguration {

		// tag::codec-bean[]
		@Bean
		ValueDecoder legacyRedissonCodec() {
			// the codec exactly as the old application configured it (here: Redisson's default)
			return ApplicationCodec.of(new Kryo5Codec(getClass().getClassLoader()));
		}
		// end::codec-bean[]

	}

}
