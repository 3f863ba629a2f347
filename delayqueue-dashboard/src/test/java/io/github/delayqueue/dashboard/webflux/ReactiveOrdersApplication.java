package io.github.delayqueue.dashboard.webflux;

import io.r2dbc.h2.H2ConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.connection.init.ConnectionFactoryInitializer;
import org.springframework.r2dbc.connection.init.ResourceDatabasePopulator;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * A WebFlux application whose orders live in R2DBC on an in-memory H2 database: creating an order schedules its
 * timeout with the {@code ReactiveDelayedQueue} in the same reactive transaction, paying it cancels the timeout after
 * the commit, and a listener returning a {@code Mono} cancels the orders left unpaid. It has the starter, Actuator and
 * the dashboard (and not Spring Security, which this module's tests have on their class path).
 * <p>
 * The R2DBC beans are declared here rather than by Spring Boot's R2DBC auto-configuration, whose module
 * ({@code spring-boot-r2dbc}) this build cannot resolve at Boot's version; they are the ones it would declare.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration" })
@Import({ ReactiveOrders.class, OrdersController.class, OrderTimeoutListener.class })
class ReactiveOrdersApplication {

	private static final String SCHEMA = """
			CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, status VARCHAR(16) NOT NULL)
			""";

	@Bean
	ConnectionFactory connectionFactory() {
		return H2ConnectionFactory.inMemory("reactive-orders");
	}

	@Bean
	ConnectionFactoryInitializer schema(ConnectionFactory connectionFactory) {
		ConnectionFactoryInitializer initializer = new ConnectionFactoryInitializer();
		initializer.setConnectionFactory(connectionFactory);
		initializer.setDatabasePopulator(new ResourceDatabasePopulator(new ByteArrayResource(SCHEMA.getBytes())));
		return initializer;
	}

	@Bean
	ReactiveTransactionManager transactionManager(ConnectionFactory connectionFactory) {
		return new R2dbcTransactionManager(connectionFactory);
	}

	@Bean
	TransactionalOperator transactionalOperator(ReactiveTransactionManager transactionManager) {
		return TransactionalOperator.create(transactionManager);
	}

	@Bean
	DatabaseClient databaseClient(ConnectionFactory connectionFactory) {
		return DatabaseClient.create(connectionFactory);
	}

}
