package io.github.delayqueue.listener;

import java.time.Duration;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisRestartTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.appendOnly();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private RedisFixture fixture;

	private LettuceConnectionFactory connectionFactory;

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.connectionFactory = this.fixture.connectionFactory();
		this.queue = this.fixture.queue(this.fixture.store(this.connectionFactory));
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aMessageScheduledBeforeACrashIsDeliveredAfterTheRestart() {
		Recorder<String> recorder = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("durable", String.class, recorder));
		this.queue.schedule("durable", "survivor", "x", Duration.ofSeconds(2));

		redis.get().kill();
		redis.get().start();

		await().atMost(WAIT).until(() -> recorder.count("survivor") == 1);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "durable").isEmpty());
	}

	@Test
	void scheduleFailsWhileRedisIsDownAndLeavesNothingBehind() {
		this.queue.schedule("down", "warm-up", "x", Duration.ofHours(1));
		this.queue.cancel("down", "warm-up");
		redis.get().stop();

		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.queue.schedule("down", "lost", "x", Duration.ofSeconds(1)));

		redis.get().start();
		await().atMost(WAIT).ignoreExceptions().until(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				return "PONG".equals(connection.ping());
			}
		});
		assertThat(RedisFixture.keysOf(redis.get(), "down")).isEmpty();
		assertThat(this.queue.schedule("down", "lost", "x", Duration.ofSeconds(1))).as("the id is free").isTrue();
	}

}
