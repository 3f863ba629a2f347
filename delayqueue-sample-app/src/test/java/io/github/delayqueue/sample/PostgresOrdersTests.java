package io.github.delayqueue.sample;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

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
 * The sample on PostgreSQL, through {@code spring.datasource.*} as the README shows: orders and their timeouts
 * commit together. Runs where a PostgreSQL server answers on 127.0.0.1:5432 with a {@code test} database that the
 * {@code postgres} user may use without a password (this project's development machines); skipped elsewhere.
 */
@DirtiesContext
@SpringBootTest(properties = { "sample.orders.payment-timeout=2s",
		"spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test", "spring.datasource.username=postgres" })
@EnabledIf(value = "postgresAnswers",
		disabledReason = "no PostgreSQL server on 127.0.0.1:5432 with a database 'test' open to 'postgres'")
class PostgresOrdersTests {

	private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

	static final TestRedis redis = TestRedis.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry, redis);
	}

	static boolean postgresAnswers() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", 5432), 500);
		}
		catch (IOException ex) {
			return false;
		}
		// something answers: it must also let the test in
		DriverManager.setLoginTimeout(2);
		try (Connection connection = DriverManager.getConnection(URL, "postgres", "")) {
			return connection.isValid(2);
		}
		catch (SQLException ex) {
			return false;
		}
	}

	@Autowired
	private OrderService orders;

	@Autowired
	private TransactionTemplate transaction;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void anUnpaidOrderIsCancelledAndARolledBackOneLeavesNothing() {
		assertThat(this.jdbc.sql("select version()").query(String.class).single()).startsWith("PostgreSQL");
		Order unpaid = this.orders.create("ivan", new BigDecimal("4.00"));
		String[] rolledBack = new String[1];
		this.transaction.executeWithoutResult((status) -> {
			rolledBack[0] = this.orders.create("judy", new BigDecimal("5.00")).id();
			status.setRollbackOnly();
		});
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.orders.get(unpaid.id()).status() == OrderStatus.CANCELLED);
		assertThat(this.jdbc.sql("select count(*) from orders where id = :id").param("id", rolledBack[0])
			.query(Integer.class).single()).isZero();
	}

}
