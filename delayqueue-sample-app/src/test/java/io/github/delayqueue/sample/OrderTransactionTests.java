package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.autoconfigure.AutoConfigureDelayQueueTester;
import io.github.delayqueue.test.autoconfigure.AutoConfigureTestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An order and its timeout commit together: an order whose transaction rolls back leaves no timeout, a payment
 * that rolls back leaves the timeout in place, and a timeout lost between a commit and Redis is restored on
 * start-up, due when it always was. The whole application runs, with the production payment timeout of 30 minutes,
 * on the kit's test Redis; the kit's tester makes the 30 minutes pass.
 */
@SpringBootTest(properties = "sample.embedded-redis.enabled=false")
@AutoConfigureTestRedis
@AutoConfigureDelayQueueTester
class OrderTransactionTests {

	private static final Duration PAYMENT_TIMEOUT = Duration.ofMinutes(30);

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

	@Autowired
	private DelayQueueTester tester;

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
		assertThat(this.tester.advance(OrderService.TIMEOUT_TOPIC, PAYMENT_TIMEOUT)).isPositive();
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.CANCELLED);
	}

	@Test
	void aTimeoutLostBetweenTheCommitAndRedisIsRestoredOnStartUp() {
		Instant start = this.tester.redisTime();
		Order order = this.orders.create("grace", new BigDecimal("9.00"));
		// as if the application had stopped between the order's commit and the timeout's write
		assertThat(this.queue.cancel(OrderService.TIMEOUT_TOPIC, order.id())).isTrue();
		Order paid = this.orders.create("heidi", new BigDecimal("1.00"));
		this.orders.pay(paid.id());

		this.recovery.run(null);

		Instant restoredDue = this.queue.lookup(OrderService.TIMEOUT_TOPIC, order.id()).orElseThrow().dueAt();
		assertThat(restoredDue).as("due when it always was: 30 minutes after the order")
			.isBetween(order.createdAt().plus(PAYMENT_TIMEOUT).minusSeconds(5),
					start.plus(PAYMENT_TIMEOUT).plusSeconds(5));
		this.tester.advance(OrderService.TIMEOUT_TOPIC, PAYMENT_TIMEOUT);
		TopicStats stats = this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.CANCELLED);
		assertThat(this.orders.get(paid.id()).status()).isEqualTo(OrderStatus.PAID);
		assertThat(stats.waiting() + stats.inflight()).as("nothing left for the paid order").isZero();
	}

}
