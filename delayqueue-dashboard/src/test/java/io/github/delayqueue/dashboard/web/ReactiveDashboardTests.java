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

	private Http http;

	@BeforeEach
	void client() {
		// plain HTTP rather than WebTestClient, whose assertions changed their signatures in Spring Framework 7: the
		// same compiled test runs on Boot 3.5 too
		this.http = new Http(this.port);
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
		assertThat(this.http.get("/actuator/delayqueue/rx-endpoint/messages/none").status()).isEqualTo(404);

		assertThat(this.http.post("/actuator/delayqueue/rx-endpoint/pause").status()).isBetween(400, 499);
		assertThat(this.admin.controls("rx-endpoint").paused()).isFalse();
	}

	@Test
	void thePageAndItsAssetsAreServed() {
		this.queue.schedule("rx-page", "p-1", "x", Duration.ofMinutes(30));
		awaitTopic("rx-page", (topic) -> topic.get("waiting").asLong() == 1);

		Http.Response response = this.http.get("/delayqueue");
		assertThat(response.status()).isEqualTo(200);
		assertThat(MediaType.parseMediaType(response.contentType()).isCompatibleWith(MediaType.TEXT_HTML)).isTrue();
		assertThat(response.header("Cache-Control")).isEqualTo("no-store");
		String page = response.body();
		assertThat(page).contains("id=\"topic-row-rx-page\"", "data-writable=\"false\"", "read-only",
				"data-api=\"/delayqueue/api\"", "/delayqueue/assets/dashboard.js");
		assertThat(page).as("no Spring Security here").doesNotContain("data-csrf-token");
		assertThat(this.http.get("/delayqueue/").status()).isEqualTo(200);

		Http.Response script = this.http.get("/delayqueue/assets/dashboard.js");
		assertThat(script.status()).isEqualTo(200);
		assertThat(MediaType.parseMediaType(script.contentType()).isCompatibleWith(new MediaType("text", "javascript")))
			.isTrue();
		assertThat(script.body()).contains("/overview");
		assertThat(MediaType.parseMediaType(this.http.get("/delayqueue/assets/dashboard.css").contentType())
			.isCompatibleWith(new MediaType("text", "css"))).isTrue();
		assertThat(this.http.get("/delayqueue/assets/other.js").status()).isEqualTo(404);
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
		assertThat(this.http.get("/delayqueue/api/topics/rx-api/message?id=none").status()).isEqualTo(404);
		Http.Response invalid = this.http.get("/delayqueue/api/topics/bad%20topic/message?id=x");
		assertThat(invalid.status()).isEqualTo(400);
		assertThat(invalid.json().get("title").asString()).isEqualTo("Invalid request");

		JsonTree waiting = get("/delayqueue/api/topics/rx-api/waiting?limit=10");
		assertThat(waiting.get("messages").get(0).get("id").asString()).isEqualTo("a-1");
		assertThat(this.http.get("/delayqueue/api/topics/rx-api/waiting?limit=101").status()).isEqualTo(400);
		assertThat(get("/delayqueue/api/topics/rx-api/dead?limit=5").get("total").asLong()).isZero();
		assertThat(get("/delayqueue/api/topics/rx-api/timeline?seconds=3600").get("buckets").size()).isPositive();
		assertThat(this.http.get("/delayqueue/api/topics/rx-api/timeline?seconds=1").status()).isEqualTo(400);
		assertThat(get("/delayqueue/api/overview").get("writable").asBoolean()).isFalse();

		this.queue.schedule(ScheduleRequest.builder("rx-api", 2).group("acme").delay(Duration.ofMinutes(20)).build());
		JsonTree groups = get("/delayqueue/api/topics/rx-api/groups?top=5");
		assertThat(groups.get("groups").get(0).get("group").asString()).isEqualTo("acme");
		assertThat(groups.get("groups").get(0).get("waiting").asLong()).isEqualTo(1);
		assertThat(this.http.get("/delayqueue/api/topics/rx-api/groups?top=0").status()).isEqualTo(400);
	}

	@Test
	void writesAreRefusedAndChangeNothing() {
		this.queue.schedule("rx-ro", "r-1", "x", Duration.ofMinutes(30));

		Http.Response pause = this.http.post("/delayqueue/api/topics/rx-ro/pause");
		assertThat(pause.status()).isEqualTo(403);
		assertThat(pause.json().get("title").asString()).isEqualTo("Read-only dashboard");
		assertThat(pause.json().get("detail").asString()).contains("management.endpoint.delayqueue.access");
		assertThat(this.http.post("/delayqueue/api/topics/rx-ro/resume").status()).isEqualTo(403);
		assertThat(this.http.post("/delayqueue/api/topics/rx-ro/limits", "{\"maxInFlight\": 3}", Map.of()).status())
			.isEqualTo(403);
		assertThat(this.http.post("/delayqueue/api/topics/rx-ro/dead/replay").status()).isEqualTo(403);
		assertThat(this.http.delete("/delayqueue/api/topics/rx-ro/dead?id=r-1").status()).isEqualTo(403);

		assertThat(this.admin.controls("rx-ro").paused()).isFalse();
		assertThat(this.admin.controls("rx-ro").limits().isLimited()).isFalse();
		assertThat(this.admin.stats("rx-ro").waiting()).isEqualTo(1);
	}

	private JsonTree get(String path) {
		Http.Response response = this.http.get(path);
		assertThat(response.status()).as(path).isEqualTo(200);
		return response.json();
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
