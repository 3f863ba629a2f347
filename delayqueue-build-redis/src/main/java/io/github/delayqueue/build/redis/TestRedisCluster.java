package io.github.delayqueue.build.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.embedded.RedisServerProcess;

import org.springframework.test.util.TestSocketUtils;

/**
 * A Redis Cluster of {@code redis-server} processes on loopback ports, started by the test that uses it: a number
 * of masters sharing the 16384 slots evenly, optionally with replicas, and torn down (by pid) on {@link #close()}.
 * The binary is the one {@link RedisServerProcess} uses, so it runs wherever the other Redis tests run.
 *
 * <pre class="code">
 * static final TestRedisCluster cluster = TestRedisCluster.builder().masters(3).start();
 * // spring.data.redis.cluster.nodes = String.join(",", cluster.nodeAddresses())
 * </pre>
 */
public final class TestRedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private final int masters;

	private final int replicasPerMaster;

	private final Duration nodeTimeout;

	private final List<Node> nodes = new ArrayList<>();

	private TestRedisCluster(Builder builder) {
		this.masters = builder.masters;
		this.replicasPerMaster = builder.replicasPerMaster;
		this.nodeTimeout = builder.nodeTimeout;
	}

	/**
	 * A builder of a cluster of three masters without replicas.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	private TestRedisCluster start() {
		try {
			int count = this.masters * (1 + this.replicasPerMaster);
			for (int i = 0; i < count; i++) {
				int port = freeClusterPort();
				RedisServerProcess server = RedisServerProcess.onPort(port)
					.arguments("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
							"--cluster-node-timeout", Long.toString(this.nodeTimeout.toMillis()),
							"--cluster-require-full-coverage", "no")
					.start();
				this.nodes.add(new Node(server, i < this.masters));
			}
			for (Node node : this.nodes) {
				node.id = call(node.port(), "CLUSTER", "MYID");
			}
			for (int i = 0; i < this.masters; i++) {
				int first = i * SLOTS / this.masters;
				int last = (i + 1) * SLOTS / this.masters - 1;
				call(this.nodes.get(i).port(), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(first),
						Integer.toString(last));
			}
			Node first = this.nodes.get(0);
			for (Node node : this.nodes.subList(1, this.nodes.size())) {
				call(first.port(), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(node.port()));
			}
			Polling.until("every node knows every other", READY_TIMEOUT, () -> this.nodes.stream()
				.allMatch((node) -> lines(call(node.port(), "CLUSTER", "NODES")).size() == this.nodes.size()));
			for (int i = this.masters; i < this.nodes.size(); i++) {
				Node master = this.nodes.get((i - this.masters) % this.masters);
				call(this.nodes.get(i).port(), "CLUSTER", "REPLICATE", master.id);
			}
			Polling.until("cluster_state:ok on every node", READY_TIMEOUT, () -> this.nodes.stream()
				.allMatch((node) -> call(node.port(), "CLUSTER", "INFO").contains("cluster_state:ok")));
			Polling.until("every replica in sync", READY_TIMEOUT, () -> this.nodes.stream()
				.filter((node) -> !node.master)
				.allMatch((node) -> call(node.port(), "INFO", "replication").contains("master_link_status:up")));
			return this;
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/**
	 * The addresses of all nodes, {@code 127.0.0.1:port}, as {@code spring.data.redis.cluster.nodes} takes them.
	 * @return the addresses
	 */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map((node) -> "127.0.0.1:" + node.port()).toList();
	}

	/**
	 * The ports of the nodes that were started as masters (a failover may have changed roles since).
	 * @return the ports
	 */
	public List<Integer> masterPorts() {
		return this.nodes.stream().filter((node) -> node.master).map(Node::port).toList();
	}

	/**
	 * The port of the master that serves a key's slot now.
	 * @param key the key
	 * @return the port
	 */
	public int masterPortOf(String key) {
		int slot = Integer.parseInt(call(aliveNode(), "CLUSTER", "KEYSLOT", key));
		for (String line : lines(call(aliveNode(), "CLUSTER", "NODES"))) {
			String[] fields = line.split(" ");
			if (!fields[2].contains("master") || fields[2].contains("fail")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				String[] range = fields[i].split("-");
				if (range[0].startsWith("[")) {
					continue;
				}
				int from = Integer.parseInt(range[0]);
				int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
				if (slot >= from && slot <= to) {
					return Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@')));
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * Moves a hash slot, with its keys, to another master while clients keep using it (as {@code redis-cli --cluster
	 * reshard --cluster-pipeline 100000} does): the target imports it, the source migrates it, the keys move in one
	 * {@code MIGRATE} (a script reads keys of its topic it cannot declare, such as its pages and buckets: moved in
	 * several batches, one running between two would find some of them gone; docs/reference/scaling.md), then every
	 * node learns the new owner. Clients meanwhile see {@code ASK} and {@code TRYAGAIN} replies.
	 * @param key a key of the slot
	 * @param targetPort the master that takes it
	 * @return how many keys moved
	 */
	public int migrateSlotOf(String key, int targetPort) {
		String slot = call(aliveNode(), "CLUSTER", "KEYSLOT", key);
		int sourcePort = masterPortOf(key);
		if (sourcePort == targetPort) {
			return 0;
		}
		String sourceId = node(sourcePort).id;
		String targetId = node(targetPort).id;
		call(targetPort, "CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId);
		call(sourcePort, "CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
		int moved = 0;
		while (true) {
			String keys = call(sourcePort, "CLUSTER", "GETKEYSINSLOT", slot, "100000");
			if (keys == null || keys.isEmpty()) {
				break;
			}
			List<String> command = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", Integer.toString(targetPort), "",
					"0", "5000", "KEYS"));
			List<String> batch = lines(keys);
			command.addAll(batch);
			call(sourcePort, command.toArray(String[]::new));
			moved += batch.size();
		}
		call(targetPort, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
		call(sourcePort, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
		for (Node node : this.nodes) {
			if (node.port() != sourcePort && node.port() != targetPort && node.server.isAlive()
					&& call(node.port(), "ROLE").startsWith("master")) {
				call(node.port(), "CLUSTER", "SETSLOT", slot, "NODE", targetId);
			}
		}
		return moved;
	}

	/**
	 * The ports of the replicas of a master, as the cluster sees them now.
	 * @param masterPort the master's port
	 * @return the replicas' ports
	 */
	public List<Integer> replicaPortsOf(int masterPort) {
		String masterId = node(masterPort).id;
		List<Integer> replicas = new ArrayList<>();
		for (String line : lines(call(aliveNode(), "CLUSTER", "NODES"))) {
			String[] fields = line.split(" ");
			if (fields[3].equals(masterId) && !fields[2].contains("fail")) {
				replicas.add(Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@'))));
			}
		}
		return replicas;
	}

	/**
	 * Sends a command to one node and returns its reply as text (see {@link TestRedis#call(String...)}).
	 * @param port the node's port
	 * @param args the command
	 * @return the reply
	 */
	public String call(int port, String... args) {
		return RedisCalls.call(port, args);
	}

	/**
	 * Deletes every key on every master.
	 */
	public void flush() {
		for (Node node : this.nodes) {
			if (node.server.isAlive() && call(node.port(), "ROLE").startsWith("master")) {
				call(node.port(), "FLUSHALL");
			}
		}
	}

	/**
	 * Counts commands per master from {@code INFO commandstats}.
	 * @return the total calls per master port
	 */
	public Map<Integer, Long> commandsPerMaster() {
		Map<Integer, Long> counts = new LinkedHashMap<>();
		for (int port : masterPorts()) {
			counts.put(port, commandStats(port).values().stream().mapToLong(Long::longValue).sum());
		}
		return counts;
	}

	/**
	 * The calls of each command a node ran, from {@code INFO commandstats} (commands that scripts ran included).
	 * @param port the node's port
	 * @return the calls by command name
	 */
	public Map<String, Long> commandStats(int port) {
		Map<String, Long> calls = new java.util.TreeMap<>();
		for (String line : call(port, "INFO", "commandstats").split("\r?\n")) {
			int at = line.indexOf("calls=");
			if (line.startsWith("cmdstat_") && at >= 0) {
				calls.put(line.substring("cmdstat_".length(), line.indexOf(':')),
						Long.parseLong(line.substring(at + 6, line.indexOf(',', at))));
			}
		}
		return calls;
	}

	/**
	 * Kills a node as a crash would ({@code SIGKILL}, by its pid).
	 * @param port the node's port
	 */
	public void kill(int port) {
		node(port).server.kill();
	}

	private Node node(int port) {
		return this.nodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No node on port " + port));
	}

	private int aliveNode() {
		return this.nodes.stream()
			.filter((node) -> node.server.isAlive())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node is alive"))
			.port();
	}

	/**
	 * Stops every node and deletes their data.
	 */
	@Override
	public void close() {
		for (Node node : this.nodes) {
			node.server.close();
		}
		this.nodes.clear();
	}

	@Override
	public String toString() {
		return "TestRedisCluster" + nodeAddresses();
	}

	private static List<String> lines(String reply) {
		return Arrays.stream(reply.split("\r?\n")).filter((line) -> !line.isBlank()).toList();
	}

	/** A free port whose cluster bus port (port + 10000) is free too. */
	private static int freeClusterPort() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = TestSocketUtils.findAvailableTcpPort();
			if (port + 10000 <= 65535 && isFree(port + 10000)) {
				return port;
			}
		}
		throw new IllegalStateException("No free loopback port with a free cluster bus port");
	}

	@SuppressWarnings("try")
	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static final class Node {

		final RedisServerProcess server;

		final boolean master;

		volatile String id;

		Node(RedisServerProcess server, boolean master) {
			this.server = server;
			this.master = master;
		}

		int port() {
			return this.server.port();
		}

	}

	/** Settings of a {@link TestRedisCluster}. */
	public static final class Builder {

		private int masters = 3;

		private int replicasPerMaster;

		private Duration nodeTimeout = Duration.ofSeconds(2);

		private Builder() {
		}

		/**
		 * Sets the number of masters.
		 * @param masters at least 1
		 * @return this builder
		 */
		public Builder masters(int masters) {
			if (masters < 1) {
				throw new IllegalArgumentException("A cluster needs at least one master");
			}
			this.masters = masters;
			return this;
		}

		/**
		 * Sets the number of replicas of each master.
		 * @param replicasPerMaster zero or more
		 * @return this builder
		 */
		public Builder replicasPerMaster(int replicasPerMaster) {
			if (replicasPerMaster < 0) {
				throw new IllegalArgumentException("Replicas must not be negative");
			}
			this.replicasPerMaster = replicasPerMaster;
			return this;
		}

		/**
		 * Sets how long a node may be unreachable before it is failed over.
		 * @param nodeTimeout the timeout
		 * @return this builder
		 */
		public Builder nodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = nodeTimeout;
			return this;
		}

		/**
		 * Starts the nodes, assigns the slots, joins them and waits until the cluster is ready.
		 * @return the running cluster
		 * @throws IllegalStateException if it does not become ready within 30 s
		 */
		public TestRedisCluster start() {
			return new TestRedisCluster(this).start();
		}

	}

}
