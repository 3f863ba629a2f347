package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An order and its timeout commit together: an order whose transaction rolls back leaves no timeout, a payment
 * that rolls back leaves the timeout in place, and a timeout lost between a commit and Redis is restored on
 * start-up.
 */
@DirtiesContext
@SpringBootTest(properties = "sample.orders.payment-timeout=2s")
class OrderTransactionTests {

	static final TestRedis redis = TestRedis.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry, redis);
	}

	@Autowired
	private OrderService orders;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private TransactionTemplate transaction;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private OrderTimeoutRecovery recovery;

	@BeforeEach
	void clean() {
		this.jdbc.sql("delete from orders").update();
	}

	@Test
	void anOrderWhoseTransactionRollsBackLeavesNoTimeout() {
		String[] id = new String[1];
		this.transaction.executeWithoutResult((status) -> {
			id[0] = this.orders.create("erin", new BigDecimal("7.00")).id();
			status.setRollbackOnly();
		});
		assertThat(this.jdbc.sql("select count(*) from orders").query(Integer.class).single()).isZero();
		assertThat(this.queue.cancel(OrderService.TIMEOUT_TOPIC, id[0])).as("no timeout was stored").isFalse();
	}

	@Test
	void aPaymentThatRollsBackLeavesTheTimeoutToCancelTheOrder() {
		Order order = this.orders.create("frank", new BigDecimal("8.00"));
		this.transaction.executeWithoutResult((status) -> {
			this.orders.pay(order.id());
			status.setRollbackOnly();
		});
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.orders.get(order.id()).status() == OrderStatus.CANCELLED);
	}

	@Test
	void aTimeoutLostBetweenTheCommitAndRedisIsRestoredOnStartUp() {
		Order order = this.orders.create("grace", new BigDecimal("9.00"));
		// as if the application had stopped between the order's commit and the timeout's write
		assertThat(this.queue.cancel(OrderService.TIMEOUT_TOPIC, order.id())).isTrue();
		Order paid = this.orders.create("heidi", new BigDecimal("1.00"));
		this.orders.pay(paid.id());

		this.recovery.run(null);

		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.orders.get(order.id()).status() == OrderStatus.CANCELLED);
		assertThat(this.orders.get(paid.id()).status()).isEqualTo(OrderStatus.PAID);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			TopicStats stats = this.queue.stats(OrderService.TIMEOUT_TOPIC);
			assertThat(List.of(stats.waiting(), stats.inflight())).as("nothing left for the paid order")
				.containsOnly(0L);
		});
	}

}
