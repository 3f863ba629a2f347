package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.build.redis.TestRedisCluster;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One topic on a local Redis Cluster of three masters, with one partition and with three: how many messages a
 * second drain, how late, what is lost, and each master's share of the commands ({@code INFO commandstats}); then a
 * master killed under load, on the cluster and behind Sentinel, without and with replica acknowledgement
 * ({@link Failover}). The
 * masters share the machine's cores with the harness, so the figure that must hold is the spread (each master
 * within ±20% of an even share with three partitions) and no loss, not a speed-up.
 * <p>
 * {@code mvn -B -q -Pcluster-benchmark -DskipTests -pl delayqueue-benchmarks -am verify -Dbenchmark.mode=full}
 * writes {@code target/benchmarks/results-cluster-<mode>.{md,json}}.
 */
public final class ClusterBenchmark {

	private static final int HANDLER_THREADS = 8;

	private static final int MASTERS = 3;

	private final TestRedisCluster cluster;

	private final int messages;

	private ClusterBenchmark(TestRedisCluster cluster, int messages) {
		this.cluster = cluster;
		this.messages = messages;
	}

	/**
	 * Runs the benchmark from the command line.
	 * @param args {@code --mode=smoke|quick|full}, {@code --out=DIR}
	 */
	public static void main(String[] args) {
		String mode = "quick";
		Path out = Path.of("target", "benchmarks");
		for (String arg : args) {
			if (arg == null || arg.isBlank()) {
				continue;
			}
			if (arg.startsWith("--mode=")) {
				mode = arg.substring("--mode=".length());
			}
			else if (arg.startsWith("--out=")) {
				out = Path.of(arg.substring("--out=".length()));
			}
			else {
				throw new IllegalArgumentException("Unknown argument '" + arg + "'; use --mode=smoke|quick|full, --out=DIR");
			}
		}
		String markdown = run(mode, out);
		System.out.println(markdown);
		System.exit(0);
	}

	/**
	 * Starts a three-master cluster, drains a topic of one partition, then one of three, and writes the report.
	 * @param mode {@code smoke}, {@code quick} or {@code full}
	 * @param out the folder for {@code results-cluster-<mode>.md} and {@code .json}
	 * @return the report as markdown
	 */
	static String run(String mode, Path out) {
		int messages = switch (mode) {
			case "smoke" -> 2_000;
			case "quick" -> 20_000;
			case "full" -> 100_000;
			default -> throw new IllegalArgumentException("Unknown mode " + mode);
		};
		Map<String, Object> environment = new LinkedHashMap<>();
		environment.put("mode", mode);
		environment.put("date", Instant.now().toString());
		environment.put("machine", Runtime.getRuntime().availableProcessors() + " cores, "
				+ System.getProperty("os.name") + " " + System.getProperty("os.arch"));
		environment.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
		environment.put("cluster", MASTERS + " masters, no replicas, on loopback, on the same cores as the harness");
		List<Drain> drains = new ArrayList<>();
		try (TestRedisCluster cluster = TestRedisCluster.builder().masters(MASTERS).start()) {
			ClusterBenchmark benchmark = new ClusterBenchmark(cluster, messages);
			drains.add(benchmark.drain(1));
			drains.add(benchmark.drain(MASTERS));
		}
		Failover failover = mode.equals("smoke") ? new Failover(Duration.ofMillis(500), Duration.ofMillis(500))
				: new Failover(Duration.ofSeconds(3), Duration.ofSeconds(3));
		List<Failover.Result> failovers = new ArrayList<>(List.of(failover.run(false, 0), failover.run(false, 1)));
		if (!mode.equals("smoke")) {
			// the smoke run keeps the build short; SentinelTests covers a Sentinel failover there
			failovers.add(failover.run(true, 0));
			failovers.add(failover.run(true, 1));
		}
		String markdown = markdown(environment, drains) + failoverMarkdown(failovers);
		write(out, mode, markdown, environment, drains, failovers);
		return markdown;
	}

	/** Stores the messages due within one second, then drains them with one consumer of eight handler threads. */
	private Drain drain(int partitions) {
		String topic = topicOnEveryMaster(partitions);
		TopicPartitioning partitioning = new TopicPartitioning(Map.of(topic, partitions));
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(this.cluster.nodeAddresses()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		WakeUpTimer scheduler = new WakeUpTimer(connectionFactory);
		try {
			RedisMessageStore store = new RedisMessageStore(connectionFactory, "bench", DeadLetterPolicy.DEFAULT);
			RedisDelayedQueue queue = new RedisDelayedQueue(store, new JacksonPayloadConverter());
			queue.setPartitioning(partitioning);
			this.cluster.masterPorts().forEach((port) -> this.cluster.call(port, "CONFIG", "RESETSTAT"));
			Set<String> seen = ConcurrentHashMap.newKeySet();
			AtomicInteger duplicates = new AtomicInteger();
			AtomicInteger early = new AtomicInteger();
			AtomicLong lastHandled = new AtomicLong();
			Samples lateness = new Samples();
			long firstDue = System.currentTimeMillis() + 3_000 + this.messages / 50;
			List<ScheduleRequest> requests = new ArrayList<>(1000);
			for (int i = 0; i < this.messages; i++) {
				requests.add(ScheduleRequest.builder(topic, "p")
					.id("m-" + i)
					.dueAt(Instant.ofEpochMilli(firstDue + (i * 1000L) / this.messages))
					.build());
				if (requests.size() == 1000) {
					queue.scheduleAll(requests);
					requests.clear();
				}
			}
			queue.scheduleAll(requests);
			scheduler.start();
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store,
					new JacksonPayloadConverter(), scheduler);
			factory.setPartitioning(partitioning);
			SimpleDelayedListenerEndpoint<String> endpoint = SimpleDelayedListenerEndpoint.of(topic, String.class,
					(payload, message) -> {
						long now = System.currentTimeMillis();
						if (!seen.add(message.id())) {
							duplicates.incrementAndGet();
						}
						if (now < message.dueAt().toEpochMilli()) {
							early.incrementAndGet();
						}
						lateness.add(Math.max(0, now - message.dueAt().toEpochMilli()));
						lastHandled.accumulateAndGet(now, Math::max);
					});
			endpoint.setConcurrency(HANDLER_THREADS);
			DelayedListenerContainer container = factory.createListenerContainer(endpoint);
			container.start();
			long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
			while (seen.size() < this.messages && System.nanoTime() < deadline) {
				sleep(20);
			}
			container.stop();
			Map<Integer, Long> commands = this.cluster.commandsPerMaster();
			this.cluster.masterPorts()
				.forEach((port) -> log("  master " + port + ": " + this.cluster.commandStats(port)));
			double seconds = Math.max(1, lastHandled.get() - firstDue) / 1000.0;
			Samples.Summary summary = lateness.summary();
			log(topic + " with " + partitions + " partition(s): " + seen.size() + " of " + this.messages + " in "
					+ seconds + " s, commands per master " + commands);
			return new Drain(partitions, this.messages, seen.size() / seconds, summary.p50(), summary.p99(),
					this.messages - seen.size(), duplicates.get(), early.get(), commands);
		}
		finally {
			scheduler.stop();
			connectionFactory.destroy();
		}
	}

	/** A topic name whose partitions cover as many masters as they can (all of them from three partitions). */
	private String topicOnEveryMaster(int partitions) {
		for (int i = 0; i < 10_000; i++) {
			String topic = "cluster-" + partitions + "-" + i;
			Set<Integer> masters = new TreeSet<>();
			for (int partition = 0; partition < partitions; partition++) {
				masters.add(this.cluster.masterPortOf(
						"bench:{" + TopicKeys.partitionName(topic, partition) + "}:pending"));
			}
			if (masters.size() == Math.min(partitions, MASTERS)) {
				return topic;
			}
		}
		throw new IllegalStateException("No topic name spreads " + partitions + " partitions over the masters");
	}

	private static String markdown(Map<String, Object> environment, List<Drain> drains) {
		StringBuilder out = new StringBuilder("| environment | value |\n|---|---|\n");
		environment.forEach((key, value) -> out.append("| ").append(key).append(" | ").append(value).append(" |\n"));
		out.append("\n### One topic on a ").append(MASTERS).append("-master Redis Cluster: ")
			.append(String.format(Locale.ROOT, "%,d", drains.get(0).messages()))
			.append(" messages due within one second, ").append(HANDLER_THREADS).append(" handler threads\n\n");
		out.append("| figure | unit |");
		drains.forEach((drain) -> out.append(' ').append(drain.partitions()).append(" partition(s) |"));
		out.append("\n|---|---|");
		drains.forEach((drain) -> out.append("---:|"));
		out.append('\n');
		row(out, "throughput, first due to last handled", "msgs/s", drains, (drain) -> Report.format(drain.throughput()));
		row(out, "lateness p50", "ms", drains, (drain) -> Report.format((double) drain.p50()));
		row(out, "lateness p99", "ms", drains, (drain) -> Report.format((double) drain.p99()));
		row(out, "lost", "messages", drains, (drain) -> Integer.toString(drain.lost()));
		row(out, "duplicated", "messages", drains, (drain) -> Integer.toString(drain.duplicated()));
		row(out, "early", "messages", drains, (drain) -> Integer.toString(drain.early()));
		for (int master = 0; master < MASTERS; master++) {
			int index = master;
			row(out, "master " + (master + 1) + "'s share of the commands", "%", drains,
					(drain) -> String.format(Locale.ROOT, "%.1f", drain.share(index)));
		}
		row(out, "largest deviation from an even share", "%", drains,
				(drain) -> String.format(Locale.ROOT, "%+.1f", drain.largestDeviation()));
		out.append("\nThe masters and the harness share ").append(Runtime.getRuntime().availableProcessors())
			.append(" cores: more partitions spread the work, they cannot add cores. What must hold is the spread ")
			.append("(each master within ±20% of an even share with three partitions) and no loss.\n");
		return out.toString();
	}

	private static String failoverMarkdown(List<Failover.Result> results) {
		boolean sentinel = results.stream().anyMatch((result) -> result.setUp().equals("Sentinel"));
		StringBuilder out = new StringBuilder("\n### A master killed (SIGKILL) while 4 threads schedule: a cluster of 3 "
				+ "masters with a replica each (a topic of 3 partitions)"
				+ (sentinel ? ", and Sentinel (1 master, 1 replica, 3 Sentinels)" : "") + "\n\n");
		out.append("| figure | unit |");
		results.forEach((result) -> out.append(' ').append(result.setUp()).append(", ")
			.append(result.replicas() == 0 ? "no replica acknowledgement" : "durability.replicas=" + result.replicas())
			.append(" |"));
		out.append("\n|---|---|");
		results.forEach((result) -> out.append("---:|"));
		out.append('\n');
		failoverRow(out, "schedule throughput before the kill", "msgs/s", results, (r) -> Report.format(r.rate()));
		failoverRow(out, "schedules acknowledged", "messages", results, (r) -> Report.format((double) r.acknowledged()));
		failoverRow(out, "acknowledged, then lost in the failover", "messages", results,
				(r) -> Integer.toString(r.lost()));
		failoverRow(out, "calls that failed (not acknowledged; the producer may retry them)", "calls", results,
				(r) -> Integer.toString(r.failedCalls()));
		failoverRow(out, "kill to the replica serving the slots", "s", results, (r) -> Report.format(r.seconds()));
		out.append("\nWithout replica acknowledgement, Redis replicates asynchronously: what the master acknowledged "
				+ "but had not sent to its replica when it died is lost. With it, schedule returns only once the replica "
				+ "has the message.\n");
		return out.toString();
	}

	private static void failoverRow(StringBuilder out, String figure, String unit, List<Failover.Result> results,
			java.util.function.Function<Failover.Result, String> value) {
		out.append("| ").append(figure).append(" | ").append(unit).append(" |");
		results.forEach((result) -> out.append(' ').append(value.apply(result)).append(" |"));
		out.append('\n');
	}

	private static void row(StringBuilder out, String figure, String unit, List<Drain> drains,
			java.util.function.Function<Drain, String> value) {
		out.append("| ").append(figure).append(" | ").append(unit).append(" |");
		drains.forEach((drain) -> out.append(' ').append(value.apply(drain)).append(" |"));
		out.append('\n');
	}

	private static void write(Path directory, String mode, String markdown, Map<String, Object> environment,
			List<Drain> drains, List<Failover.Result> failovers) {
		try {
			Files.createDirectories(directory);
			Files.writeString(directory.resolve("results-cluster-" + mode + ".md"), markdown);
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("environment", environment);
			json.put("drains", drains);
			json.put("failovers", failovers);
			JsonMapper.builder()
				.enable(SerializationFeature.INDENT_OUTPUT)
				.build()
				.writeValue(directory.resolve("results-cluster-" + mode + ".json").toFile(), json);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void log(String line) {
		Benchmarks.log(line);
	}

	/**
	 * The figures of one drain.
	 *
	 * @param partitions the topic's partitions
	 * @param messages messages stored
	 * @param throughput messages handled per second, first due to last handled
	 * @param p50 median lateness, ms
	 * @param p99 99th percentile lateness, ms
	 * @param lost messages never handled
	 * @param duplicated messages handled more than once
	 * @param early messages handled before their due time
	 * @param commandsPerMaster commands each master ran, by port
	 */
	record Drain(int partitions, int messages, double throughput, long p50, long p99, int lost, int duplicated,
			int early, Map<Integer, Long> commandsPerMaster) {

		double share(int master) {
			long total = this.commandsPerMaster.values().stream().mapToLong(Long::longValue).sum();
			List<Long> counts = new ArrayList<>(this.commandsPerMaster.values());
			return (total == 0 || master >= counts.size()) ? 0 : 100.0 * counts.get(master) / total;
		}

		/** The largest relative deviation of a master's share from an even one, in percent of the even share. */
		double largestDeviation() {
			double even = 100.0 / this.commandsPerMaster.size();
			double largest = 0;
			for (int master = 0; master < this.commandsPerMaster.size(); master++) {
				double deviation = 100.0 * (share(master) - even) / even;
				if (Math.abs(deviation) > Math.abs(largest)) {
					largest = deviation;
				}
			}
			return largest;
		}

	}

}
