package io.github.delayqueue.build.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.embedded.RedisServerProcess;

/**
 * A Redis master, one replica and three Sentinels watching them, as {@code redis-server} processes on loopback
 * ports started by the test that uses it and torn down (by pid) on {@link #close()}. A failover follows
 * {@link #killMaster()} within a few seconds (the Sentinels judge a master down after one second).
 *
 * <pre class="code">
 * static final TestRedisSentinel sentinel = TestRedisSentinel.start();
 * // spring.data.redis.sentinel.master = sentinel.masterName()
 * // spring.data.redis.sentinel.nodes = String.join(",", sentinel.sentinelAddresses())
 * </pre>
 */
public final class TestRedisSentinel implements AutoCloseable {

	/** The name the Sentinels know the master by. */
	public static final String MASTER_NAME = "mymaster";

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private final List<RedisServerProcess> servers = new ArrayList<>();

	private final List<RedisServerProcess> sentinels = new ArrayList<>();

	private TestRedisSentinel() {
	}

	/**
	 * Starts the master, the replica and the Sentinels, and waits until the Sentinels see both servers.
	 * @return the running set-up
	 * @throws IllegalStateException if it is not ready within 30 s
	 */
	public static TestRedisSentinel start() {
		TestRedisSentinel setUp = new TestRedisSentinel();
		try {
			RedisServerProcess master = RedisServerProcess.onFreePort().start();
			setUp.servers.add(master);
			setUp.servers.add(RedisServerProcess.onFreePort()
				.arguments("--replicaof", "127.0.0.1", Integer.toString(master.port()))
				.start());
			for (int i = 0; i < 3; i++) {
				setUp.sentinels.add(RedisServerProcess.onFreePort()
					.configLines("sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
							"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
							"sentinel failover-timeout " + MASTER_NAME + " 5000")
					.arguments("--sentinel")
					.start());
			}
			Polling.until("the replica in sync", READY_TIMEOUT,
					() -> setUp.call(setUp.servers.get(1).port(), "INFO", "replication")
						.contains("master_link_status:up"));
			Polling.until("every Sentinel sees the replica and the other Sentinels", READY_TIMEOUT, () -> setUp.sentinels.stream()
				.allMatch((sentinel) -> {
					String seen = setUp.call(sentinel.port(), "SENTINEL", "MASTER", MASTER_NAME);
					return seen.contains("num-slaves\n1") && seen.contains("num-other-sentinels\n2");
				}));
			return setUp;
		}
		catch (RuntimeException ex) {
			setUp.close();
			throw ex;
		}
	}

	/**
	 * The name the Sentinels know the master by.
	 * @return {@value #MASTER_NAME}
	 */
	public String masterName() {
		return MASTER_NAME;
	}

	/**
	 * The Sentinels' addresses, {@code 127.0.0.1:port}, as {@code spring.data.redis.sentinel.nodes} takes them.
	 * @return the addresses
	 */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((sentinel) -> "127.0.0.1:" + sentinel.port()).toList();
	}

	/**
	 * The port of the master, as the Sentinels see it now.
	 * @return the port
	 */
	public int masterPort() {
		for (RedisServerProcess sentinel : this.sentinels) {
			try {
				String address = call(sentinel.port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
				return Integer.parseInt(address.split("\n")[1]);
			}
			catch (RuntimeException ex) {
				// ask the next one
			}
		}
		throw new IllegalStateException("No Sentinel names a master");
	}

	/**
	 * The port of the server started as the replica.
	 * @return the port
	 */
	public int replicaPort() {
		return this.servers.get(1).port();
	}

	/**
	 * Stops the server started as the replica (a clean shutdown), so that writes find no replica to confirm them.
	 */
	public void stopReplica() {
		this.servers.get(1).stop();
	}

	/**
	 * Kills the current master ({@code SIGKILL}, by its pid) and waits until the Sentinels have promoted the
	 * replica.
	 * @return the new master's port
	 * @throws IllegalStateException if no failover happens within 30 s
	 */
	public int killMaster() {
		int old = masterPort();
		RedisServerProcess master = this.servers.stream()
			.filter((server) -> server.port() == old)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The master on port " + old + " was not started here"));
		master.kill();
		Polling.until("a failover", READY_TIMEOUT, () -> masterPort() != old
				&& call(masterPort(), "ROLE").startsWith("master"));
		return masterPort();
	}

	/**
	 * Sends a command to one server or Sentinel and returns its reply as text.
	 * @param port the port
	 * @param args the command
	 * @return the reply
	 */
	public String call(int port, String... args) {
		return RedisCalls.call(port, args);
	}

	/** Stops the Sentinels, then the servers, and deletes their data. */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServerProcess::close);
		this.servers.forEach(RedisServerProcess::close);
		this.sentinels.clear();
		this.servers.clear();
	}

}
