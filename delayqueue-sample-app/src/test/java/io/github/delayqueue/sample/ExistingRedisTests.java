package io.github.delayqueue.sample;

import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a Redis already answering at the configured address, the sample uses it and starts none of its own.
 */
@DirtiesContext
@SpringBootTest
class ExistingRedisTests {

	// killed when the JVM exits, after the context (closed at the end of the class) has stopped using it
	static final TestRedis redis = TestRedis.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry, redis);
	}

	@Autowired
	private EmbeddedRedisConfiguration.EmbeddedRedis embeddedRedis;

	@Autowired
	private OrderService orders;

	@Test
	void anExistingRedisIsUsed() {
		assertThat(this.embeddedRedis.isStarted()).isFalse();
		Order order = this.orders.create("dave", new java.math.BigDecimal("3.00"));
		assertThat(this.orders.get(order.id()).status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
		// its timeout is in this Redis: its envelope, in the topic's one bucket
		assertThat(redis.call("HEXISTS", "dq:{order-timeout}:body:0", order.id())).isEqualTo("1");
	}

}
