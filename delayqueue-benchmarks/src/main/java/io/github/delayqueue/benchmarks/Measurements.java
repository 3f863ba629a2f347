package io.github.delayqueue.benchmarks;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What one system's run measured, scenario by scenario. Its own JVM writes it as JSON ({@link SystemRun}); the
 * harness reads both systems' and compares them ({@link Comparison}). A scenario that did not run is {@code null} or
 * absent from its map.
 *
 * @param system the system's name: {@code delayqueue} or {@code Redisson}
 * @param notes what the run noticed on the way (a slow store, a missed delivery)
 * @param schedule the schedule throughputs and memory
 * @param lateness per rate (messages per second), the paced run's tally
 * @param drains per drain scenario ({@code drain}, {@code drain-random}, {@code drain-slow}), its figures
 * @param sizes per number of waiting messages, the latency summary of each operation
 * @param loss the loss report's rounds
 */
record Measurements(String system, List<String> notes, @Nullable ScheduleFigures schedule,
		Map<Integer, Tally.Paced> lateness, Map<String, DrainFigures> drains,
		Map<Integer, Map<String, Samples.Summary>> sizes, @Nullable List<Tally.Paced> loss) {

	private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

	void write(Path file) {
		JSON.writeValue(file.toFile(), this);
	}

	static Measurements read(Path file) {
		return JSON.readValue(file.toFile(), Measurements.class);
	}

	/**
	 * Schedule throughputs, their costs, and the memory a waiting message takes.
	 *
	 * @param oneThread messages per second, single-message API, one thread
	 * @param eightThreads messages per second, single-message API, eight threads
	 * @param bulk messages per second, the bulk form
	 * @param bytesPerMessage Redis memory per waiting message
	 * @param oneThreadCost the cost of the one-thread run
	 * @param eightThreadsCost the cost of the eight-thread run
	 * @param bulkCost the cost of the bulk run
	 * @param async8 messages per second, asynchronous single-message API, one caller thread, 8 in flight
	 * @param async256 the same with 256 in flight
	 * @param async8Cost the cost of the 8-in-flight run
	 * @param async256Cost the cost of the 256-in-flight run
	 */
	record ScheduleFigures(double oneThread, double eightThreads, double bulk, double bytesPerMessage,
			Costs.Cost oneThreadCost, Costs.Cost eightThreadsCost, Costs.Cost bulkCost, double async8,
			double async256, Costs.Cost async8Cost, Costs.Cost async256Cost) {
	}

	/**
	 * A drain's figures.
	 *
	 * @param order the order the messages were stored in
	 * @param fillSeconds the time storing them took
	 * @param throughput messages handled per second, from the first due time to the last handled
	 * @param tally what arrived, and how late
	 * @param cost the cost per delivered message
	 * @param network for a drain through the delaying proxy, its round trips; otherwise {@code null}
	 */
	record DrainFigures(String order, double fillSeconds, double throughput, Tally.Paced tally, Costs.Cost cost,
			@Nullable Network network) {

		DrainFigures withNetwork(Network network) {
			return new DrainFigures(this.order, this.fillSeconds, this.throughput, this.tally, this.cost, network);
		}

	}

	/**
	 * The round trips of a drain through the delaying proxy.
	 *
	 * @param addedNanosEachWay the delay the proxy adds to each chunk, in each direction
	 * @param pingMicrosDirect median {@code PING} round trip straight to Redis
	 * @param pingMicrosThroughProxy median {@code PING} round trip through the proxy
	 * @param connectionsThroughProxy connections the system opened through the proxy
	 */
	record Network(long addedNanosEachWay, long pingMicrosDirect, long pingMicrosThroughProxy, int connectionsThroughProxy) {
	}

}
