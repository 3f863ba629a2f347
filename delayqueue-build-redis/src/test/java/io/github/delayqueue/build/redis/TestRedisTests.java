package io.github.delayqueue.build.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRedisTests {

	@Test
	void startsAServerThatAnswers() {
		try (TestRedis redis = TestRedis.builder().allowExternal(false).start()) {
			assertThat(redis.isRunning()).isTrue();
			assertThat(redis.call("SET", "k", "v")).isEqualTo("OK");
			assertThat(redis.call("GET", "k")).isEqualTo("v");
			redis.flush();
			assertThat(redis.call("GET", "k")).isNull();
		}
	}

	@Test
	void appendOnlyServerKeepsItsDataAcrossAKill() {
		try (TestRedis redis = TestRedis.builder().appendOnly(true).allowExternal(false).start()) {
			int port = redis.port();
			redis.call("SET", "k", "v");
			redis.kill();
			assertThat(redis.isRunning()).isFalse();
			redis.start();
			assertThat(redis.port()).isEqualTo(port);
			assertThat(redis.call("GET", "k")).isEqualTo("v");
			redis.stop();
			assertThat(redis.isRunning()).isFalse();
			redis.start();
			assertThat(redis.call("GET", "k")).isEqualTo("v");
		}
	}

	@Test
	void closedServerIsGone() {
		TestRedis redis = TestRedis.builder().allowExternal(false).start();
		redis.close();
		assertThat(redis.isRunning()).isFalse();
	}

	@Test
	void errorRepliesBecomeExceptions() {
		try (TestRedis redis = TestRedis.builder().allowExternal(false).start()) {
			assertThatThrownBy(() -> redis.call("NOSUCHCOMMAND")).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("NOSUCHCOMMAND");
		}
	}

}
