package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.support.DelayQueueMonitor.Outcome;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order-timeout listener in the {@code @DelayQueueTest} slice: the queue on a test Redis, the orders' service
 * and repository on the embedded database, nothing of the web or the actuator, and the production payment timeout
 * of 30 minutes, made to pass on the Redis clock.
 */
@DelayQueueTest
@Import({ OrderService.class, OrderRepository.class, OrderTimeoutListenerTests.OrdersDatabase.class })
@EnableConfigurationProperties(SampleProperties.class)
class OrderTimeoutListenerTests {

	@Autowired
	private OrderService orders;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayQueueTester tester;

	@Autowired
	private SampleProperties properties;

	@Test
	void anUnpaidOrderIsCancelledThirtyMinutesLater() {
		assertThat(this.properties.orders().paymentTimeout()).isEqualTo(Duration.ofMinutes(30));
		Order order = this.orders.create("ivan", new BigDecimal("12.00"));

		assertThat(this.tester.advance(OrderService.TIMEOUT_TOPIC, Duration.ofMinutes(29))).isZero();
		assertThat(this.tester.advance(OrderService.TIMEOUT_TOPIC, Duration.ofMinutes(30))).isOne();
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);

		assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.CANCELLED);
		assertThat(this.tester.received(OrderService.TIMEOUT_TOPIC)).singleElement().satisfies((call) -> {
			assertThat(call.payload(OrderTimeout.class)).isEqualTo(new OrderTimeout(order.id()));
			assertThat(call.outcome()).isEqualTo(Outcome.SUCCESS);
		});
	}

	@Test
	void aPaidOrderIsLeftAloneByItsTimeout() {
		Order order = this.orders.create("judy", new BigDecimal("2.00"));
		this.orders.pay(order.id());
		// the payment cancelled the timeout; one scheduled again by hand still finds the order paid
		this.queue.schedule(OrderService.TIMEOUT_TOPIC, order.id(), new OrderTimeout(order.id()),
				Duration.ofMinutes(30));
		this.tester.advance(OrderService.TIMEOUT_TOPIC, Duration.ofMinutes(30));
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);

		assertThat(this.tester.received(OrderService.TIMEOUT_TOPIC)).extracting((call) -> call.id())
			.containsExactly(order.id());
		assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.PAID);
	}

	/**
	 * The orders' embedded database with its schema and transactions, in plain Spring: the slice brings no JDBC
	 * auto-configuration, and this test runs on every Boot line (whose JDBC auto-configurations have different
	 * names).
	 */
	@TestConfiguration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class OrdersDatabase {

		@Bean(destroyMethod = "shutdown")
		org.springframework.jdbc.datasource.embedded.EmbeddedDatabase ordersDataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("schema.sql")
				.build();
		}

		@Bean
		JdbcClient ordersJdbcClient(DataSource dataSource) {
			return JdbcClient.create(dataSource);
		}

		@Bean
		PlatformTransactionManager ordersTransactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

}
