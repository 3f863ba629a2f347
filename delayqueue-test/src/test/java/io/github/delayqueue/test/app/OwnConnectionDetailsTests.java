package io.github.delayqueue.test.app;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.embedded.RedisServerProcess;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import io.github.delayqueue.test.autoconfigure.TestRedisConnectionDetails;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test that brings its own Redis connection details, as a {@code @ServiceConnection} container does: the test Redis
 * backs off, and the tester works on the test's own server.
 */
@DelayQueueTest
@Import({ ReminderListeners.class, OwnConnectionDetailsTests.OwnRedis.class })
class OwnConnectionDetailsTests {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private RedisServerProcess ownRedis;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayQueueTester tester;

	@Test
	void theTestRedisBacksOffForTheTestsOwnConnectionDetails() {
		assertThat(this.context.getBeansOfType(TestRedisConnectionDetails.class)).isEmpty();
		assertThat(this.context.getBean(DataRedisConnectionDetails.class).getStandalone().getPort())
			.isEqualTo(this.ownRedis.port());

		this.queue.schedule(ReminderListeners.REMINDERS, "own", new Reminder("own"), Duration.ofHours(1));
		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofHours(1))).isOne();
		this.tester.awaitIdle(ReminderListeners.REMINDERS);
		assertThat(this.tester.payloads(ReminderListeners.REMINDERS, Reminder.class))
			.containsExactly(new Reminder("own"));
		RedisClient client = RedisClient.create();
		try (StatefulRedisConnection<String, String> connection = client
			.connect(RedisURI.create("127.0.0.1", this.ownRedis.port()))) {
			// dbsize, not keys: its signature is the same in every Lettuce the Boot lines bring
			assertThat(connection.sync().dbsize()).as("the topic's keys, on the test's own server").isPositive();
		}
		finally {
			client.shutdown();
		}
	}

	/** A Redis of the test's own, and its connection details. */
	static class OwnRedis {

		// closed with the context, after its connections: not killed by the JVM's exit while the context still closes
		@Bean(destroyMethod = "close")
		RedisServerProcess ownRedis() {
			return RedisServerProcess.onFreePort().killOnExit(false).start();
		}

		@Bean
		DataRedisConnectionDetails ownRedisConnectionDetails(RedisServerProcess ownRedis) {
			return new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of("127.0.0.1", ownRedis.port());
				}

			};
		}

	}

}
