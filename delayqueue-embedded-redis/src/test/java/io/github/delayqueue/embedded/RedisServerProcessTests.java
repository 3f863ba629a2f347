package io.github.delayqueue.embedded;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisServerProcessTests {

	@Test
	void startsStopsAndStartsAgainOnTheSamePort() {
		try (RedisServerProcess redis = RedisServerProcess.onFreePort().start()) {
			int port = redis.port();
			assertThat(port).isPositive();
			assertThat(RedisServerProcess.isListening("127.0.0.1", port)).isTrue();
			redis.stop();
			assertThat(redis.isAlive()).isFalse();
			assertThat(RedisServerProcess.isListening("127.0.0.1", port)).isFalse();
			redis.start();
			assertThat(redis.port()).isEqualTo(port);
			assertThat(redis.isAlive()).isTrue();
		}
	}

	@Test
	void closeKillsTheProcess() {
		RedisServerProcess redis = RedisServerProcess.onFreePort().start();
		redis.close();
		assertThat(redis.isAlive()).isFalse();
		assertThat(RedisServerProcess.isListening("127.0.0.1", redis.port())).isFalse();
	}

	@Test
	void rejectsImpossiblePorts() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisServerProcess.onPort(0));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisServerProcess.onPort(70000));
	}

}
