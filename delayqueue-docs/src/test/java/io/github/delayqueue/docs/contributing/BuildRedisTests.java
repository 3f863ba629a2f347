package io.github.delayqueue.docs.contributing;

import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** CONTRIBUTING.md's "Redis in our own tests": a test class of this build with a real Redis of its own. */
class BuildRedisTests {

	// tag::extension[]
	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();   // or .appendOnly() for restart tests
	// end::extension[]

	@Test
	void aTestGetsARedisThatAnswers(TestRedis server) {
		assertThat(server.isRunning()).isTrue();
		assertThat(server.call("PING")).isEqualTo("PONG");
	}

}
