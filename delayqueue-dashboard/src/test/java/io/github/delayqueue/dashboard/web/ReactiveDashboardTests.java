package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;

import io.github.delayqueue.build.JsonTree;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard and the actuator endpoint in a WebFlux application that opened nothing: a real reactive server
 * answers the same paths as on Spring MVC, shows every topic, and refuses every write.
 */
@SpringBootTest(classes = ReactiveApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "delayqueue.dashboard.sample-interval=200ms",
				"management.endpoints.web.exposure.include=delayqueue" })
class ReactiveDashboardTests {

	static final TestRedis redis = TestRedis.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		PlainApplication.redis(registry, redis);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	private WebTestClient client;

	@BeforeEach
	void client() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@Test
	void theApplicationIsAWebFluxOne() {
		// a reactive web server's context (its class is in another package on each Boot line)
		assertThat(this.context.getClass().getSimpleName()).contains("ReactiveWebServerApplicationContext");
		assertThat(this.context.getBeansOfType(ReactiveDashboardApiController.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(DashboardApiController.class)).isEmpty();
	}

	@Test
	void theActuatorEndpointAnswersAndIsReadOnly() {
		this.queue.schedule(ScheduleRequest.builder("rx-endpoint", Map.of("n", 1))
			.id("e-1")
			.delay(Duration.ofHours(1))
			.build());

		JsonTree topics = get("/actuator/delayqueue").get("topics");
		assertThat(topics.valueStream().filter((topic) -> topic.get("topic").asString().equals("rx-endpoint")))
			.singleElement()
			.satisfies((topic) -> assertThat(topic.get("waiting").asLong()).isEqualTo(1));
		JsonTree topic = get("/actuator/delayqueue/rx-endpoint");
		assertThat(topic.get("waiting").asLong()).isEqualTo(1);
		JsonTree message = get("/actuator/delayqueue/rx-endpoint/messages/e-1");
		assertThat(message.get("state").asString()).isEqualTo("WAITING");
		this.client.get().uri("/actuator/delayqueue/rx-endpoint/messages/none").exchange().expectStatus().isNotFound();

		this.client.post().uri("/actuator/delayqueue/rx-endpoint/pause").exchange().expectStatus().is4xxClientError();
		assertThat(this.admin.controls("rx-endpoint").paused()).isFalse();
	}

	@Test
	void thePageAndItsAssetsAreServed() {
		this.queue.schedule("rx-page", "p-1", "x", Duration.ofMinutes(30));
		awaitTopic("rx-page", (topic) -> topic.get("waiting").asLong() == 1);

		String page = this.client.get()
			.uri("/delayqueue")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_HTML)
			.expectHeader()
			.cacheControl(org.springframework.http.CacheControl.noStore())
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(page).contains("id=\"topic-row-rx-page\"", "data-writable=\"false\"", "read-only",
				"data-api=\"/delayqueue/api\"", "/delayqueue/assets/dashboard.js");
		assertThat(page).as("no Spring Security here").doesNotContain("data-csrf-token");
		this.client.get().uri("/delayqueue/").exchange().expectStatus().isOk();

		this.client.get()
			.uri("/delayqueue/assets/dashboard.js")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith("text/javascript")
			.expectBody(String.class)
			.value((script) -> assertThat(script).contains("/overview"));
		this.client.get()
			.uri("/delayqueue/assets/dashboard.css")
			.exchange()
			.expectHeader()
			.contentTypeCompatibleWith("text/css");
		this.client.get().uri("/delayqueue/assets/other.js").exchange().expectStatus().isNotFound();
	}

	@Test
	void theApiReadsEveryKindOfAnswer() {
		this.queue.schedule(ScheduleRequest.builder("rx-api", Map.of("n", 1))
			.id("a-1")
			.header("tenant", "acme")
			.delay(Duration.ofMinutes(20))
			.build());

		JsonTree message = get("/delayqueue/api/topics/rx-api/message?id=a-1");
		assertThat(message.get("state").asString()).isEqualTo("WAITING");
		assertThat(message.get("payload").asString()).isEqualTo("{\"n\":1}");
		assertThat(message.get("headers").get("tenant").asString()).isEqualTo("acme");
		this.client.get().uri("/delayqueue/api/topics/rx-api/message?id=none").exchange().expectStatus().isNotFound();
		this.client.get()
			.uri("/delayqueue/api/topics/bad%20topic/message?id=x")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.title")
			.isEqualTo("Invalid request");

		JsonTree waiting = get("/delayqueue/api/topics/rx-api/waiting?limit=10");
		assertThat(waiting.get("messages").get(0).get("id").asString()).isEqualTo("a-1");
		this.client.get().uri("/delayqueue/api/topics/rx-api/waiting?limit=101").exchange().expectStatus().isBadRequest();
		assertThat(get("/delayqueue/api/topics/rx-api/dead?limit=5").get("total").asLong()).isZero();
		assertThat(get("/delayqueue/api/topics/rx-api/timeline?seconds=3600").get("buckets").size()).isPositive();
		this.client.get().uri("/delayqueue/api/topics/rx-api/timeline?seconds=1").exchange().expectStatus().isBadRequest();
		assertThat(get("/delayqueue/api/overview").get("writable").asBoolean()).isFalse();

		this.queue.schedule(ScheduleRequest.builder("rx-api", 2).group("acme").delay(Duration.ofMinutes(20)).build());
		JsonTree groups = get("/delayqueue/api/topics/rx-api/groups?top=5");
		assertThat(groups.get("groups").get(0).get("group").asString()).isEqualTo("acme");
		assertThat(groups.get("groups").get(0).get("waiting").asLong()).isEqualTo(1);
		this.client.get().uri("/delayqueue/api/topics/rx-api/groups?top=0").exchange().expectStatus().isBadRequest();
	}

	@Test
	void writesAreRefusedAndChangeNothing() {
		this.queue.schedule("rx-ro", "r-1", "x", Duration.ofMinutes(30));

		this.client.post()
			.uri("/delayqueue/api/topics/rx-ro/pause")
			.exchange()
			.expectStatus()
			.isForbidden()
			.expectBody()
			.jsonPath("$.title")
			.isEqualTo("Read-only dashboard")
			.jsonPath("$.detail")
			.value((detail) -> assertThat(detail.toString()).contains("management.endpoint.delayqueue.access"));
		this.client.post().uri("/delayqueue/api/topics/rx-ro/resume").exchange().expectStatus().isForbidden();
		this.client.post()
			.uri("/delayqueue/api/topics/rx-ro/limits")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"maxInFlight\": 3}")
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.post().uri("/delayqueue/api/topics/rx-ro/dead/replay").exchange().expectStatus().isForbidden();
		this.client.delete().uri("/delayqueue/api/topics/rx-ro/dead?id=r-1").exchange().expectStatus().isForbidden();

		assertThat(this.admin.controls("rx-ro").paused()).isFalse();
		assertThat(this.admin.controls("rx-ro").limits().isLimited()).isFalse();
		assertThat(this.admin.stats("rx-ro").waiting()).isEqualTo(1);
	}

	private JsonTree get(String path) {
		byte[] body = this.client.get()
			.uri(path)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.returnResult()
			.getResponseBody();
		return JsonTree.parse(body);
	}

	private void awaitTopic(String name, Predicate<JsonTree> condition) {
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			for (JsonTree topic : get("/delayqueue/api/overview").get("topics")) {
				if (topic.get("topic").asString().equals(name) && condition.test(topic)) {
					return true;
				}
			}
			return false;
		});
	}

}
