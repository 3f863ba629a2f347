package io.github.delayqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.build.redis.TestRedisSentinel;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * delayqueue behind Redis Sentinel (one master, one replica, three Sentinels, started by the test): messages
 * replicated before the master dies are delivered by the promoted replica, and scheduling and consuming go on after
 * the failover without a restart.
 */
class SentinelTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private TestRedisSentinel sentinel;

	@BeforeEach
	void setUp() {
		this.sentinel = TestRedisSentinel.start();
	}

	@AfterEach
	void tearDown() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		this.sentinel.close();
	}

	@Test
	void consumingGoesOnAfterAFailover() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(this.sentinel.masterName());
		this.sentinel.sentinelAddresses().forEach((address) -> configuration.addSentinel(RedisNode.fromString(address)));
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		this.closeables.add(connectionFactory::destroy);
		RedisMessageStore store = new RedisMessageStore(connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		WakeUpTimer scheduler = new WakeUpTimer(connectionFactory, Duration.ofMillis(5),
				Duration.ofMillis(500));
		scheduler.start();
		this.closeables.add(0, scheduler::stop);
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store,
				PayloadConverter.json(), scheduler);
		DelayedListenerEndpointRegistry registry = new DelayedListenerEndpointRegistry();
		Recorder<String> recorder = new Recorder<>();
		registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("failover", String.class, recorder),
				factory);
		registry.start();
		this.closeables.add(0, registry::stop);

		queue.schedule("failover", "before-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> recorder.count("before-1") == 1);
		// due after the failover; replicated before it (WAIT: the replica has it)
		queue.schedule("failover", "before-2", "x", Duration.ofSeconds(4));
		assertThat(this.sentinel.call(this.sentinel.masterPort(), "WAIT", "1", "5000")).isEqualTo("1");

		this.sentinel.killMaster();

		// scheduling is idempotent: a call whose reply was lost in the failover may be repeated
		await().atMost(WAIT).ignoreExceptions().until(() -> {
			queue.schedule("failover", "after-1", "x", Duration.ZERO);
			return true;
		});
		await().atMost(WAIT).until(() -> recorder.count("after-1") == 1 && recorder.count("before-2") == 1);
		assertThat(recorder.countsById.values()).allMatch((count) -> count.get() == 1);
	}

}
