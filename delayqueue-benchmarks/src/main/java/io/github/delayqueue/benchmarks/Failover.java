package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.build.redis.TestRedisCluster;
import io.github.delayqueue.build.redis.TestRedisSentinel;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A master killed ({@code SIGKILL}) while producers schedule: on a cluster of three masters with a replica each (to
 * a topic of three partitions), or behind Sentinel (one master, one replica, three Sentinels). How many messages
 * whose {@code schedule} returned are gone once the replica took over, without and with replica acknowledgement,
 * and what the acknowledgement costs in schedule throughput.
 */
final class Failover {

	private static final String TOPIC = "failover";

	private static final int PRODUCERS = 4;

	private final Duration before;

	private final Duration after;

	Failover(Duration before, Duration after) {
		this.before = before;
		this.after = after;
	}

	/**
	 * Runs once on a fresh set-up.
	 * @param sentinel {@code true} for Sentinel, {@code false} for a cluster
	 * @param replicas replicas that must confirm each schedule (0: none)
	 * @return the figures
	 */
	Result run(boolean sentinel, int replicas) {
		try (Target target = sentinel ? new SentinelTarget() : new ClusterTarget()) {
			LettuceConnectionFactory connectionFactory = target.connectionFactory();
			try {
				RedisMessageStore store = new RedisMessageStore(connectionFactory, "bench", DeadLetterPolicy.DEFAULT);
				if (replicas > 0) {
					store.setReplicaAcknowledgement(replicas, Duration.ofSeconds(1));
				}
				RedisDelayedQueue queue = new RedisDelayedQueue(store, new JacksonPayloadConverter());
				queue.setPartitioning(target.partitioning());
				Set<String> acknowledged = ConcurrentHashMap.newKeySet();
				AtomicInteger failedCalls = new AtomicInteger();
				AtomicBoolean producing = new AtomicBoolean(true);
				AtomicInteger next = new AtomicInteger();
				List<Thread> producers = new ArrayList<>();
				for (int i = 0; i < PRODUCERS; i++) {
					Thread producer = new Thread(() -> {
						while (producing.get()) {
							String id = "m-" + next.getAndIncrement();
							try {
								queue.schedule(TOPIC, id, "p", Duration.ofDays(1));
								acknowledged.add(id);
							}
							catch (RuntimeException ex) {
								// not acknowledged: a real producer would schedule the id again
								failedCalls.incrementAndGet();
							}
						}
					}, "producer-" + i);
					producer.start();
					producers.add(producer);
				}
				sleep(this.before);
				double rate = acknowledged.size() / (this.before.toMillis() / 1000.0);
				long killed = System.nanoTime();
				target.killMasterAndAwaitFailover();
				double failoverSeconds = (System.nanoTime() - killed) / 1e9;
				// and a while after it, to see writes go on
				sleep(this.after);
				producing.set(false);
				for (Thread producer : producers) {
					producer.join();
				}
				// checked without replica acknowledgement: the new master has no replica
				RedisDelayedQueue check = new RedisDelayedQueue(
						new RedisMessageStore(connectionFactory, "bench", DeadLetterPolicy.DEFAULT),
						new JacksonPayloadConverter());
				check.setPartitioning(target.partitioning());
				int lost = 0;
				for (String id : acknowledged) {
					// a waiting message is cancelled; one that is not there was acknowledged and then lost
					if (!check.cancel(TOPIC, id)) {
						lost++;
					}
				}
				Benchmarks.log("failover (" + target.name() + ") with " + replicas + " replica(s) to confirm: "
						+ acknowledged.size() + " acknowledged, " + lost + " lost, " + failedCalls.get()
						+ " failed calls, " + rate + " msgs/s before the kill");
				return new Result(target.name(), replicas, rate, acknowledged.size(), lost, failedCalls.get(),
						failoverSeconds);
			}
			finally {
				connectionFactory.destroy();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Where the failover happens. */
	private interface Target extends AutoCloseable {

		String name();

		LettuceConnectionFactory connectionFactory();

		TopicPartitioning partitioning();

		void killMasterAndAwaitFailover();

		@Override
		void close();

	}

	/** Three masters with a replica each; the master of the topic's first partition is killed. */
	private static final class ClusterTarget implements Target {

		private final TestRedisCluster cluster = TestRedisCluster.builder()
			.masters(3)
			.replicasPerMaster(1)
			.nodeTimeout(Duration.ofSeconds(1))
			.start();

		@Override
		public String name() {
			return "cluster";
		}

		@Override
		public LettuceConnectionFactory connectionFactory() {
			return Failover.connectionFactory(this.cluster);
		}

		@Override
		public TopicPartitioning partitioning() {
			return new TopicPartitioning(Map.of(TOPIC, 3));
		}

		@Override
		public void killMasterAndAwaitFailover() {
			int victim = this.cluster.masterPortOf("bench:{" + TOPIC + "}:pending");
			this.cluster.kill(victim);
			awaitFailover(this.cluster, victim);
		}

		@Override
		public void close() {
			this.cluster.close();
		}

	}

	/** One master, one replica, three Sentinels. */
	private static final class SentinelTarget implements Target {

		private final TestRedisSentinel sentinel = TestRedisSentinel.start();

		@Override
		public String name() {
			return "Sentinel";
		}

		@Override
		public LettuceConnectionFactory connectionFactory() {
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
			configuration.master(this.sentinel.masterName());
			this.sentinel.sentinelAddresses().forEach((address) -> configuration.addSentinel(RedisNode.fromString(address)));
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(configuration,
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			return connectionFactory;
		}

		@Override
		public TopicPartitioning partitioning() {
			return TopicPartitioning.NONE;
		}

		@Override
		public void killMasterAndAwaitFailover() {
			this.sentinel.killMaster();
		}

		@Override
		public void close() {
			this.sentinel.close();
		}

	}

	/** A cluster connection that follows a failover: topology refreshed on redirects and reconnects, and every second. */
	private static LettuceConnectionFactory connectionFactory(TestRedisCluster cluster) {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.build();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(cluster.nodeAddresses()),
				LettuceClientConfiguration.builder()
					.commandTimeout(Duration.ofSeconds(2))
					.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
					.build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

	private static void awaitFailover(TestRedisCluster cluster, int victim) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline) {
			try {
				if (cluster.masterPortOf("bench:{" + TOPIC + "}:pending") != victim) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// no master for the slot yet
			}
			sleep(Duration.ofMillis(50));
		}
		throw new IllegalStateException("No failover within 60 s");
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The figures of one failover.
	 *
	 * @param setUp {@code cluster} or {@code Sentinel}
	 * @param replicas replicas that had to confirm each schedule
	 * @param rate schedules acknowledged per second before the kill, by four producer threads
	 * @param acknowledged schedules acknowledged in all
	 * @param lost acknowledged messages gone after the failover
	 * @param failedCalls schedule calls that failed (during the failover)
	 * @param seconds from the kill until the replica served the slots
	 */
	record Result(String setUp, int replicas, double rate, int acknowledged, int lost, int failedCalls, double seconds) {
	}

}
