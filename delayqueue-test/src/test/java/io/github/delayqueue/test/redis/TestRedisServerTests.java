package io.github.delayqueue.test.redis;

import java.time.Duration;

import io.github.delayqueue.test.redis.TestRedisServer.Choice;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assumptions.assumeThat;

class TestRedisServerTests {

	@Test
	void choicesAreReadInAnyCaseAndAutoByDefault() {
		assertThat(Choice.of(null)).isEqualTo(Choice.AUTO);
		assertThat(Choice.of(" ")).isEqualTo(Choice.AUTO);
		assertThat(Choice.of("Process")).isEqualTo(Choice.PROCESS);
		assertThat(Choice.of("CONTAINER")).isEqualTo(Choice.CONTAINER);
		assertThatIllegalArgumentException().isThrownBy(() -> Choice.of("docker"))
			.withMessageContaining(TestRedisServer.SERVER_PROPERTY);
	}

	@Test
	void withoutDockerTheProbeAnswersAtOnceAndTheServerIsAProcess() {
		assumeThat(DockerProbe.engineConfiguredOrSocketPresent()).as("a machine without Docker").isFalse();
		long start = System.nanoTime();
		assertThat(DockerProbe.dockerAvailable(Duration.ofSeconds(30))).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
		assertThat(TestRedisServer.shared().kind()).isEqualTo(TestRedisServer.Kind.PROCESS);
	}

	@Test
	void everyContextTakesADatabaseOfItsOwn() {
		TestRedisServer server = TestRedisServer.shared();
		int first = server.takeDatabase();
		int second = server.takeDatabase();
		try {
			assertThat(first).isBetween(1, TestRedisServer.DATABASES - 1);
			assertThat(second).isNotEqualTo(first).isBetween(1, TestRedisServer.DATABASES - 1);
			assertThat(TestRedisServer.shared()).as("one server per JVM").isSameAs(server);
		}
		finally {
			server.releaseDatabase(first);
			server.releaseDatabase(second);
		}
	}

}
