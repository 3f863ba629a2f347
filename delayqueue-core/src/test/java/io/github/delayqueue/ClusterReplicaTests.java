package io.github.delayqueue;

import java.time.Duration;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.build.redis.TestRedisCluster;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.NotReplicatedException;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Replica acknowledgement on a Redis Cluster with a replica per master: each change waits for the replica of the
 * master that made it (and only that one).
 */
class ClusterReplicaTests {

	private TestRedisCluster cluster;

	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void setUp() {
		this.cluster = TestRedisCluster.builder().masters(3).replicasPerMaster(1).start();
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(this.cluster.nodeAddresses()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void tearDown() {
		this.connectionFactory.destroy();
		this.cluster.close();
	}

	@Test
	void eachChangeWaitsForTheReplicaOfItsOwnMaster() {
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		store.setReplicaAcknowledgement(1, Duration.ofMillis(500));
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
		String quiet = topicOn(this.cluster.masterPorts().get(0));
		String lonely = topicOn(this.cluster.masterPorts().get(1));
		assertThat(queue.schedule(quiet, "a", "x", Duration.ofMinutes(5))).isTrue();
		assertThat(queue.schedule(lonely, "a", "x", Duration.ofMinutes(5))).isTrue();

		// the second master loses its replica: only its changes go unconfirmed
		this.cluster.replicaPortsOf(this.cluster.masterPorts().get(1)).forEach(this.cluster::kill);
		assertThatExceptionOfType(NotReplicatedException.class)
			.isThrownBy(() -> queue.schedule(lonely, "b", "x", Duration.ofMinutes(5)));
		assertThat(queue.schedule(quiet, "b", "x", Duration.ofMinutes(5))).isTrue();
		assertThat(admin.stats(lonely).waiting()).as("made on its master").isEqualTo(2);
	}

	@Test
	void aChangeToASlotThatMovedFollowsItAndWaitsForTheNewMastersReplica() {
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		store.setReplicaAcknowledgement(1, Duration.ofMillis(500));
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
		int from = this.cluster.masterPorts().get(0);
		int to = this.cluster.masterPorts().get(2);
		String topic = topicOn(from);
		assertThat(queue.schedule(topic, "a", "x", Duration.ofMinutes(5))).isTrue();
		this.cluster.migrateSlotOf("dq:{" + topic + "}:pending", to);

		// the client still thinks the slot is on the first master: the script is redirected, and so is the WAIT
		this.cluster.replicaPortsOf(to).forEach(this.cluster::kill);
		assertThatExceptionOfType(NotReplicatedException.class)
			.isThrownBy(() -> queue.schedule(topic, "b", "x", Duration.ofMinutes(5)));
		assertThat(admin.stats(topic).waiting()).isEqualTo(2);
	}

	private String topicOn(int masterPort) {
		for (int i = 0; i < 1000; i++) {
			if (this.cluster.masterPortOf("dq:{t-" + i + "}:pending") == masterPort) {
				return "t-" + i;
			}
		}
		throw new IllegalStateException("No topic on master " + masterPort);
	}

}
