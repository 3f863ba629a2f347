package io.github.delayqueue.sample;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.build.redis.TestRedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample on a Redis Cluster of three masters, with the {@code order-timeout} topic in three partitions, as the
 * README shows: configured by properties alone.
 */
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.orders.payment-timeout=1s", "delayqueue.topics.order-timeout.partitions=3",
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true" })
class ClusterSampleTests {

	// stopped when the JVM exits, after the context (closed at the end of the class) has stopped using it
	static final TestRedisCluster cluster = startCluster();

	private static TestRedisCluster startCluster() {
		TestRedisCluster started = TestRedisCluster.builder().masters(3).start();
		Runtime.getRuntime().addShutdownHook(new Thread(started::close, "test-cluster-cleanup"));
		return started;
	}

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.cluster.nodes", () -> String.join(",", cluster.nodeAddresses()));
	}

	@LocalServerPort
	private int port;

	@Autowired
	private EmbeddedRedisConfiguration.EmbeddedRedis embeddedRedis;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@Test
	void unpaidOrdersAreCancelledWithTheirTimeoutsSpreadOverTheMasters() {
		assertThat(this.embeddedRedis.isStarted()).isFalse();
		HttpJson http = new HttpJson(this.port);
		java.util.List<String> ids = new java.util.ArrayList<>();
		for (int i = 0; i < 12; i++) {
			ids.add(http.post("/orders", "{\"customer\": \"c" + i + "\", \"amount\": 5}").text("id"));
		}
		java.util.Set<Integer> masters = new java.util.HashSet<>();
		for (int partition = 0; partition < 3; partition++) {
			masters.add(cluster.masterPortOf("dq:{" + ((partition == 0) ? "order-timeout"
					: "order-timeout#" + partition) + "}:pending"));
		}
		assertThat(masters).as("the partitions' masters").hasSizeGreaterThan(1);

		for (String id : ids) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> http.get("/orders/" + id).text("status").equals("CANCELLED"));
		}
		assertThat(this.admin.stats("order-timeout").waiting()).isZero();
		assertThat(http.get("/actuator/delayqueue").body().toString()).contains("order-timeout");
		assertThat(http.get("/actuator/health").text("status")).isEqualTo("UP");
	}

}
