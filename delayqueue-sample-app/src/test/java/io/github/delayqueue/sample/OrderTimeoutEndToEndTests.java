package io.github.delayqueue.sample;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample over real HTTP, on the embedded-Redis default: nothing answers on the configured Redis port, so the
 * application starts its own server there.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.orders.payment-timeout=1s", "delayqueue.scheduler.poll-interval=200ms" })
class OrderTimeoutEndToEndTests {

	private static final int REDIS_PORT = freePort();

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

	@Test
	void withNothingOnThePortTheSampleStartsItsOwnRedis() {
		assertThat(this.embeddedRedis.isStarted()).isTrue();
		assertThat(this.queue.stats("order-timeout")).isNotNull();
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

		await().atMost(Duration.ofSeconds(20))
			.until(() -> http.get("/orders/" + id).text("status").equals("CANCELLED"));
		assertThat(http.get("/orders").body().findValuesAsString("id")).contains(id);
	}

	@Test
	void aPaidOrderStaysPaidAfterItsTimeoutWouldHavePassed() {
		HttpJson http = new HttpJson(this.port);
		String id = http.post("/orders", "{\"customer\": \"bob\", \"amount\": 10}").text("id");
		HttpJson.Response paid = http.post("/orders/" + id + "/pay", null);
		assertThat(paid.status()).isEqualTo(200);
		assertThat(paid.text("status")).isEqualTo("PAID");
		assertThat(this.queue.cancel("order-timeout", id)).as("the timeout was cancelled").isFalse();

		// a marker order created after it has a later timeout; once the marker is cancelled, bob's would have been
		String marker = http.post("/orders", "{\"customer\": \"marker\", \"amount\": 1}").text("id");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> http.get("/orders/" + marker).text("status").equals("CANCELLED"));
		assertThat(http.get("/orders/" + id).text("status")).isEqualTo("PAID");
		assertThat(http.post("/orders/" + id + "/pay", null).status()).as("paying again is harmless").isEqualTo(200);
	}

	@Test
	void payingACancelledOrderIsAConflict() {
		HttpJson http = new HttpJson(this.port);
		String id = http.post("/orders", "{\"customer\": \"carol\", \"amount\": 5}").text("id");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> http.get("/orders/" + id).text("status").equals("CANCELLED"));
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

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
