package io.github.delayqueue.sample;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.autoconfigure.AutoConfigureDelayQueueTester;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample over real HTTP, on the embedded-Redis default (nothing answers on the configured Redis port, so the
 * application starts its own server there), with the production payment timeout of 30 minutes: the test makes the
 * 30 minutes pass on the Redis clock with the kit's {@link DelayQueueTester}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureDelayQueueTester
class OrderTimeoutEndToEndTests {

	private static final Duration PAYMENT_TIMEOUT = Duration.ofMinutes(30);

	private static final int REDIS_PORT = TestSocketUtils.findAvailableTcpPort();

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "localhost");
		registry.add("spring.data.redis.port", () -> REDIS_PORT);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private EmbeddedRedisConfiguration.EmbeddedRedis embeddedRedis;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@Autowired
	private DelayQueueTester tester;

	@Autowired
	private SampleProperties properties;

	@Test
	void withNothingOnThePortTheSampleStartsItsOwnRedis() {
		assertThat(this.embeddedRedis.isStarted()).isTrue();
		assertThat(this.admin.stats("order-timeout")).isNotNull();
	}

	@Test
	void theTestsRunWithTheProductionPaymentTimeout() {
		assertThat(this.properties.orders().paymentTimeout()).isEqualTo(PAYMENT_TIMEOUT);
	}

	@Test
	void theEndpointIsReadOnlyUnlessOpened() {
		HttpJson http = new HttpJson(this.port);
		assertThat(http.get("/actuator/delayqueue").status()).isEqualTo(200);
		// replay and purge change data: closed by default
		assertThat(http.post("/actuator/delayqueue/order-timeout/dead", null).status()).isIn(404, 405);
		// and so is the dashboard, which follows the endpoint's access
		HttpJson.Response pause = http.post("/delayqueue/api/topics/order-timeout/pause", null);
		assertThat(pause.status()).isEqualTo(403);
		assertThat(pause.text("title")).isEqualTo("Read-only dashboard");
		assertThat(http.get("/actuator/delayqueue/order-timeout").body().get("paused").asBoolean()).isFalse();
	}

	@Test
	void anUnpaidOrderIsCancelledWhenItsTimeoutFires() {
		HttpJson http = new HttpJson(this.port);
		HttpJson.Response created = http.post("/orders", "{\"customer\": \"alice\", \"amount\": 42.50}");
		assertThat(created.status()).isEqualTo(201);
		assertThat(created.text("status")).isEqualTo("PENDING_PAYMENT");
		assertThat(created.text("customer")).isEqualTo("alice");
		assertThat(created.body().get("amount").decimalValue()).isEqualByComparingTo("42.50");
		String id = created.text("id");
		assertThat(created.location()).endsWith("/orders/" + id);

		// a minute early, nothing happens
		this.tester.advance(OrderService.TIMEOUT_TOPIC, PAYMENT_TIMEOUT.minusMinutes(1));
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(http.get("/orders/" + id).text("status")).isEqualTo("PENDING_PAYMENT");

		this.tester.advance(OrderService.TIMEOUT_TOPIC, PAYMENT_TIMEOUT);
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(http.get("/orders/" + id).text("status")).isEqualTo("CANCELLED");
		assertThat(this.tester.payloads(OrderService.TIMEOUT_TOPIC, OrderTimeout.class))
			.contains(new OrderTimeout(id));
		assertThat(http.get("/orders").body().valueStream().map((order) -> order.get("id").asString()))
			.contains(id);
	}

	@Test
	void aPaidOrderStaysPaidAfterItsTimeoutWouldHavePassed() {
		HttpJson http = new HttpJson(this.port);
		String id = http.post("/orders", "{\"customer\": \"bob\", \"amount\": 10}").text("id");
		HttpJson.Response paid = http.post("/orders/" + id + "/pay", null);
		assertThat(paid.status()).isEqualTo(200);
		assertThat(paid.text("status")).isEqualTo("PAID");
		assertThat(this.queue.cancel("order-timeout", id)).as("the timeout was cancelled").isFalse();

		this.tester.advance(OrderService.TIMEOUT_TOPIC, PAYMENT_TIMEOUT.plusHours(1));
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(this.tester.received(OrderService.TIMEOUT_TOPIC)).noneMatch((call) -> call.id().equals(id));
		assertThat(http.get("/orders/" + id).text("status")).isEqualTo("PAID");
		assertThat(http.post("/orders/" + id + "/pay", null).status()).as("paying again is harmless").isEqualTo(200);
	}

	@Test
	void payingACancelledOrderIsAConflict() {
		HttpJson http = new HttpJson(this.port);
		String id = http.post("/orders", "{\"customer\": \"carol\", \"amount\": 5}").text("id");
		this.tester.fireNow(OrderService.TIMEOUT_TOPIC, id);
		this.tester.awaitIdle(OrderService.TIMEOUT_TOPIC);
		assertThat(http.get("/orders/" + id).text("status")).isEqualTo("CANCELLED");
		HttpJson.Response response = http.post("/orders/" + id + "/pay", null);
		assertThat(response.status()).isEqualTo(409);
		assertThat(response.text("title")).isEqualTo("Order cancelled");
	}

	@Test
	void badInputAndUnknownOrdersAreProblems() {
		HttpJson http = new HttpJson(this.port);
		HttpJson.Response invalid = http.post("/orders", "{\"customer\": \"\", \"amount\": -1}");
		assertThat(invalid.status()).isEqualTo(400);
		assertThat(invalid.body().get("errors").has("customer")).isTrue();
		assertThat(invalid.body().get("errors").has("amount")).isTrue();
		assertThat(http.post("/orders", "not json").status()).isEqualTo(400);
		assertThat(http.get("/orders?limit=0").status()).isEqualTo(400);
		HttpJson.Response missing = http.get("/orders/no-such-order");
		assertThat(missing.status()).isEqualTo(404);
		assertThat(missing.text("title")).isEqualTo("Order not found");
		assertThat(http.post("/orders/no-such-order/pay", null).status()).isEqualTo(404);
	}
}
