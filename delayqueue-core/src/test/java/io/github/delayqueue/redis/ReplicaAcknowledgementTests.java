package io.github.delayqueue.redis;

import java.time.Duration;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisSentinel;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * With replica acknowledgement, a change a user relies on returns once the replicas have it, and fails clearly (the
 * change made on the master) when they do not confirm in time.
 */
class ReplicaAcknowledgementTests {

	private TestRedisSentinel servers;

	private LettuceConnectionFactory connectionFactory;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.servers = TestRedisSentinel.start();
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", this.servers.masterPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.store = new RedisMessageStore(this.connectionFactory, RedisFixture.PREFIX, DeadLetterPolicy.DEFAULT);
		this.queue = new RedisDelayedQueue(this.store, PayloadConverter.json());
		this.admin = new RedisDelayedQueueAdmin(this.store, PayloadConverter.json());
	}

	@AfterEach
	void tearDown() {
		this.connectionFactory.destroy();
		this.servers.close();
	}

	@Test
	void aScheduledMessageIsOnTheReplicaWhenScheduleReturns() {
		this.store.setReplicaAcknowledgement(1, Duration.ofSeconds(5));
		for (int i = 0; i < 20; i++) {
			assertThat(this.queue.schedule("replicated", "m-" + i, "x", Duration.ofMinutes(5))).isTrue();
			// read from the replica at once: WAIT made sure it has the message
			assertThat(RedisFixture.waiting((args) -> this.servers.call(this.servers.replicaPort(), args),
					RedisFixture.PREFIX
					+ ":{replicated}:pending").get("m-" + i)).isNotNull();
		}
		assertThat(this.queue.cancel("replicated", "m-0")).isTrue();
		assertThat(this.servers.call(this.servers.replicaPort(), "ZSCORE",
				RedisFixture.PREFIX + ":{replicated}:pending", "m-0")).isNull();
	}

	@Test
	void anAsynchronousScheduleIsOnTheReplicaWhenItsFutureCompletes() throws Exception {
		this.store.setReplicaAcknowledgement(1, Duration.ofSeconds(5));
		io.github.delayqueue.AsyncDelayedQueue async = this.queue.async();
		for (int i = 0; i < 20; i++) {
			// each schedule chained on the previous one's completion: on the client's I/O thread
			String first = "first-" + i;
			assertThat(async.schedule("replicated-async", first, "x", Duration.ofMinutes(5))
				.thenCompose((stored) -> async.schedule("replicated-async", "then-" + first, "x", Duration.ofMinutes(5)))
				.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			assertThat(RedisFixture.waiting((args) -> this.servers.call(this.servers.replicaPort(), args),
					RedisFixture.PREFIX
					+ ":{replicated-async}:pending").get("then-first-" + i)).isNotNull();
		}
		assertThat(async.cancel("replicated-async", "first-0").get(10, java.util.concurrent.TimeUnit.SECONDS))
			.isTrue();
		assertThat(this.servers.call(this.servers.replicaPort(), "ZSCORE",
				RedisFixture.PREFIX + ":{replicated-async}:pending", "first-0")).isNull();
	}

	@Test
	void withoutTheReplicaAChangeFailsClearlyAndHoldsOnTheMaster() {
		this.store.setReplicaAcknowledgement(1, Duration.ofMillis(300));
		this.servers.stopReplica();

		assertThatExceptionOfType(NotReplicatedException.class)
			.isThrownBy(() -> this.queue.schedule("replicated", "lonely", "x", Duration.ofMinutes(5)))
			.withMessageContaining("only 0 of 1 replica(s) confirmed it within PT0.3S")
			.satisfies((ex) -> assertThat(ex.getConfirmed()).isZero());
		assertThat(this.admin.stats("replicated").waiting()).as("made on the master").isEqualTo(1);
		assertThatExceptionOfType(NotReplicatedException.class)
			.isThrownBy(() -> this.queue.cancel("replicated", "lonely"));

		this.store.setReplicaAcknowledgement(0, Duration.ofMillis(300));
		assertThat(this.queue.schedule("replicated", "unchecked", "x", Duration.ofMinutes(5))).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.setReplicaAcknowledgement(-1,
				Duration.ofSeconds(1)));
	}

}
