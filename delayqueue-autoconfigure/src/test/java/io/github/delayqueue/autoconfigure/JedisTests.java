package io.github.delayqueue.autoconfigure;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.annotation.DelayedListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.test.util.TestSocketUtils;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The library on Jedis: scheduling, delivery, look-up and the topic controls work on a {@link JedisConnectionFactory};
 * what needs Lettuce (replica acknowledgement) fails at start-up naming it. The build runs this class with Lettuce
 * left off the class path (the {@code without-lettuce} execution), as a Jedis application that excluded it has it.
 */
class JedisTests {

	private static Process redis;

	private static int port;

	/**
	 * A {@code redis-server} of its own, started without our test support (which talks to Redis through Lettuce,
	 * absent here) and watched through Jedis.
	 */
	@BeforeAll
	static void startRedis() throws IOException {
		Assumptions.assumeTrue(onPath("redis-server"), "redis-server is not installed (Debian package redis-server)");
		port = TestSocketUtils.findAvailableTcpPort();
		redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
				"--appendonly", "no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
			try (Jedis jedis = new Jedis("127.0.0.1", port)) {
				return "PONG".equals(jedis.ping());
			}
		});
	}

	@AfterAll
	static void stopRedis() throws InterruptedException {
		if (redis != null) {
			redis.destroy();
			if (!redis.waitFor(10, TimeUnit.SECONDS)) {
				redis.destroyForcibly();
			}
		}
	}

	private static boolean onPath(String command) {
		for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (Files.isExecutable(Path.of(dir, command))) {
				return true;
			}
		}
		return false;
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"spring.data.redis.client-type=jedis", "delayqueue.key-prefix=jedis");
	}

	@Test
	void lettuceIsLeftOutWhereTheBuildSaysSo() {
		if (Boolean.getBoolean("delayqueue.test.without-lettuce")) {
			assertThat(ClassUtils.isPresent("io.lettuce.core.RedisClient", null)).isFalse();
		}
		assertThat(ClassUtils.isPresent("redis.clients.jedis.Jedis", null)).isTrue();
	}

	@Test
	void messagesAreScheduledDeliveredLookedUpAndPausedOverJedis() {
		runner().withUserConfiguration(Listener.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			DelayedQueue queue = context.getBean(DelayedQueue.class);
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			Listener listener = context.getBean(Listener.class);

			queue.schedule(ScheduleRequest.builder("jedis-orders", "first").id("o-1").delay(Duration.ofMillis(50)).build());
			await().atMost(Duration.ofSeconds(20)).until(() -> listener.received.contains("first"));

			queue.schedule(ScheduleRequest.builder("jedis-orders", "later").id("o-2").delay(Duration.ofHours(1)).build());
			assertThat(queue.lookup("jedis-orders", "o-2")).hasValueSatisfying(
					(message) -> assertThat(message.state()).isEqualTo(MessageState.WAITING));
			assertThat(queue.cancel("jedis-orders", "o-2")).isTrue();

			admin.pause("jedis-orders");
			queue.schedule("jedis-orders", "held", Duration.ZERO);
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
				.until(() -> !listener.received.contains("held"));
			admin.resume("jedis-orders");
			await().atMost(Duration.ofSeconds(20)).until(() -> listener.received.contains("held"));
		});
	}

	@Test
	void replicaAcknowledgementFailsAtStartupNamingLettuce() {
		runner().withPropertyValues("delayqueue.durability.replicas=1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("Lettuce");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		final List<String> received = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "jedis-orders")
		void onOrder(String payload) {
			this.received.add(payload);
		}

	}

}
