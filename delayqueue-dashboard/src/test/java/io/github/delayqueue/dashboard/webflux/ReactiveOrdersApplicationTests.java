package io.github.delayqueue.dashboard.webflux;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A WebFlux application with R2DBC on H2, end to end over HTTP, on a Redis the test starts: an order's timeout is
 * scheduled in the reactive transaction that inserts the order, paying cancels it, the unpaid order is cancelled by a
 * listener when its timeout fires and the paid one is not, and a transaction that rolls back schedules nothing. The
 * actuator endpoint and the dashboard answer in the same application.
 */
@SpringBootTest(classes = ReactiveOrdersApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "orders.timeout=4s",
				"management.endpoints.web.exposure.include=delayqueue" })
class ReactiveOrdersApplicationTests {

	static final TestRedis redis = TestRedis.builder().build();

	private static final Duration WAIT = Duration.ofSeconds(30);

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("spring.data.redis.database", redis::database);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private OrderTimeoutListener listener;

	private WebTestClient client;

	@BeforeEach
	void client() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(WAIT)
			.build();
	}

	@Test
	void theUnpaidOrderIsCancelledWhenItsTimeoutFiresAndThePaidOneIsNot() {
		post("/orders/order-paid").expectStatus().isCreated().expectBody().jsonPath("$.status").isEqualTo("NEW");
		post("/orders/order-unpaid").expectStatus().isCreated();
		// both transactions committed: both timeouts are stored
		assertThat(timeout("order-paid")).isEqualTo(MessageState.WAITING);
		assertThat(timeout("order-unpaid")).isEqualTo(MessageState.WAITING);

		post("/orders/order-paid/payment").expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("PAID");
		// the payment's transaction completed after its cancel ran
		assertThat(timeout("order-paid")).as("the paid order's timeout").isNull();

		await().atMost(WAIT).until(() -> "CANCELLED".equals(status("order-unpaid")));
		// the paid order's timeout was due before the unpaid one's: had it been left, it would have fired by now
		assertThat(status("order-paid")).isEqualTo("PAID");
		assertThat(this.listener.received).containsExactly("order-unpaid");
		// the listener's Mono completed: acknowledged, nothing left of the message
		await().atMost(WAIT).until(() -> timeout("order-unpaid") == null);
		post("/orders/order-unpaid/payment").expectStatus().isEqualTo(HttpStatus.CONFLICT);
	}

	@Test
	void aTransactionThatRollsBackSchedulesNothing() {
		post("/orders/order-refused?refuse=true").expectStatus().isEqualTo(HttpStatus.CONFLICT);

		this.client.get().uri("/orders/order-refused").exchange().expectStatus().isNotFound();
		assertThat(timeout("order-refused")).as("the rolled-back order's timeout").isNull();
		// the id is free again: the same order can be created and scheduled once its transaction commits
		post("/orders/order-refused").expectStatus().isCreated();
		assertThat(timeout("order-refused")).isEqualTo(MessageState.WAITING);
		post("/orders/order-refused/payment").expectStatus().isOk();
		assertThat(this.listener.received).doesNotContain("order-refused");
	}

	@Test
	void theActuatorEndpointAndTheDashboardAnswerInThisApplication() {
		post("/orders/order-watched").expectStatus().isCreated();

		JsonNode topic = this.client.get()
			.uri("/actuator/delayqueue/" + ReactiveOrders.TIMEOUTS + "/messages/order-watched")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JsonNode.class)
			.returnResult()
			.getResponseBody();
		assertThat(topic).isNotNull();
		assertThat(topic.get("state").asString()).isEqualTo("WAITING");

		String page = this.client.get()
			.uri("/delayqueue")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_HTML)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(page).contains("id=\"topic-row-" + ReactiveOrders.TIMEOUTS + "\"");

		post("/orders/order-watched/payment").expectStatus().isOk();
	}

	private WebTestClient.ResponseSpec post(String uri) {
		return this.client.post().uri(uri).exchange();
	}

	private String status(String id) {
		JsonNode order = this.client.get()
			.uri("/orders/" + id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JsonNode.class)
			.returnResult()
			.getResponseBody();
		assertThat(order).isNotNull();
		return order.get("status").asString();
	}

	private MessageState timeout(String id) {
		return this.queue.lookup(ReactiveOrders.TIMEOUTS, id).map(MessageInfo::state).orElse(null);
	}

}
