package io.github.delayqueue.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.delayqueue.benchmarks.Measurements.DrainFigures;
import io.github.delayqueue.benchmarks.Measurements.ScheduleFigures;
import io.github.delayqueue.benchmarks.Report.Better;
import org.jspecify.annotations.Nullable;

/**
 * Puts the two systems' measurements side by side in the report: one section per scenario, each figure in a row
 * with ours beside Redisson's, and the raw figures in the report's details.
 */
final class Comparison {

	/** The commands a cost row's note names, most calls first. */
	private static final int TOP_COMMANDS = 5;

	private final Report report;

	private final Settings settings;

	private final @Nullable Double ceiling;

	private final Measurements ours;

	private final Measurements theirs;

	private boolean costsDefined;

	/**
	 * Creates the comparison of one run.
	 * @param report where the rows go
	 * @param settings the sizes the run used
	 * @param ceiling the Redis ceiling measured in the run (script calls per second), or {@code null}
	 * @param ours delayqueue's measurements
	 * @param theirs Redisson's measurements
	 */
	Comparison(Report report, Settings settings, @Nullable Double ceiling, Measurements ours, Measurements theirs) {
		this.report = report;
		this.settings = settings;
		this.ceiling = ceiling;
		this.ours = ours;
		this.theirs = theirs;
	}

	/** Adds the rows of a scenario both systems ran. */
	void add(String scenario) {
		switch (scenario) {
			case "schedule" -> schedule(both(scenario, Measurements::schedule));
			case "lateness" -> lateness();
			case "drain" -> drain(scenario, String.format(Locale.ROOT,
					"3. Drain: %,d messages due within one second, %d handler threads", this.settings.drainCount(),
					Workloads.CONSUMER_THREADS), null);
			case "drain-random" -> drain(scenario, String.format(Locale.ROOT,
					"3b. Drain in random order: %,d messages due within one second, %d handler threads",
					this.settings.drainCount(), Workloads.CONSUMER_THREADS),
					"stored in a shuffled order (fixed seed), not in due order");
			case "drain-slow" -> drain(scenario, String.format(Locale.ROOT, "3c. Drain over a slow network: %,d "
					+ "messages due within one second, due order, ~1 ms added round trip, %d handler threads",
					this.settings.drainCount(), Workloads.CONSUMER_THREADS),
					"stored through the proxy too, before the measured interval");
			case "size" -> sizes();
			case "loss" -> loss(both(scenario, Measurements::loss));
			default -> throw new IllegalArgumentException(scenario);
		}
	}

	/** A scenario's figures of both systems, ours first; fails if either system has none. */
	private <T> List<T> both(String scenario, Function<Measurements, @Nullable T> figures) {
		T ours = figures.apply(this.ours);
		T theirs = figures.apply(this.theirs);
		if (ours == null || theirs == null) {
			throw new IllegalStateException("No figures of '" + scenario + "' from "
					+ ((ours == null) ? this.ours.system() : this.theirs.system()));
		}
		return List.of(ours, theirs);
	}

	private String ofCeiling(double rate) {
		return (this.ceiling != null) ? String.format(Locale.ROOT, "%.0f%% of the ceiling", 100 * rate / this.ceiling)
				: "";
	}

	private @Nullable String notes(double ours, double theirs) {
		if (this.ceiling == null) {
			return null;
		}
		return "ours " + ofCeiling(ours) + ", Redisson " + ofCeiling(theirs);
	}

	private void schedule(List<ScheduleFigures> both) {
		ScheduleFigures ours = both.get(0);
		ScheduleFigures theirs = both.get(1);
		String section = "1. Schedule throughput (" + this.settings.scheduleCount()
				+ " messages due in a day, ~30 B payload)";
		this.report.row(section, "single-message API, 1 thread", "msgs/s", Better.HIGHER, ours.oneThread(),
				theirs.oneThread(), notes(ours.oneThread(), theirs.oneThread()));
		this.report.row(section, "single-message API, 8 threads", "msgs/s", Better.HIGHER, ours.eightThreads(),
				theirs.eightThreads(), notes(ours.eightThreads(), theirs.eightThreads()));
		this.report.row(section, "bulk: our batched API (1000 per call, 4 threads); Redisson: offerAsync, 512 in flight",
				"msgs/s", Better.HIGHER, ours.bulk(), theirs.bulk(), notes(ours.bulk(), theirs.bulk()));
		this.report.row(section, "asynchronous single-message API, 1 caller thread, 8 in flight (ours: async().schedule; "
				+ "Redisson: offerAsync)", "msgs/s", Better.HIGHER, ours.async8(), theirs.async8(),
				notes(ours.async8(), theirs.async8()));
		this.report.row(section, "asynchronous single-message API, 1 caller thread, 256 in flight (ours: "
				+ "async().schedule; Redisson: offerAsync)", "msgs/s", Better.HIGHER, ours.async256(), theirs.async256(),
				notes(ours.async256(), theirs.async256()));
		this.report.row(section, "Redis memory per waiting message (INFO used_memory delta / n)", "bytes",
				Better.LOWER, ours.bytesPerMessage(), theirs.bytesPerMessage(), null);
		costRows(section, "schedule", "single-message API, 1 thread", ours.oneThreadCost(),
				theirs.oneThreadCost());
		costRows(section, "schedule", "single-message API, 8 threads", ours.eightThreadsCost(),
				theirs.eightThreadsCost());
		costRows(section, "schedule", "bulk", ours.bulkCost(), theirs.bulkCost());
		costRows(section, "schedule", "asynchronous, 1 caller thread, 8 in flight", ours.async8Cost(),
				theirs.async8Cost());
		costRows(section, "schedule", "asynchronous, 1 caller thread, 256 in flight", ours.async256Cost(),
				theirs.async256Cost());
		this.report.detail("schedule", bySystem(ours, theirs));
	}

	private void lateness() {
		int[][] runs = { { this.settings.lowRate(), this.settings.lowSeconds() },
				{ this.settings.highRate(), this.settings.highSeconds() } };
		for (int[] run : runs) {
			int rate = run[0];
			List<Tally.Paced> both = both("lateness", (measured) -> measured.lateness().get(rate));
			Tally.Paced ours = both.get(0);
			Tally.Paced theirs = both.get(1);
			String section = String.format(Locale.ROOT,
					"2. Lateness at %,d msgs/s for %d s (delays %d–%d ms, %d handler threads)", rate, run[1],
					this.settings.minDelayMillis(), this.settings.maxDelayMillis(), Workloads.CONSUMER_THREADS);
			latenessRows(section, ours, theirs);
			this.report.row(section, "send rate achieved", "msgs/s", Better.HIGHER, ours.sendRate(), theirs.sendRate(),
					"the harness's 8 senders, single-message API");
			if (ours.cost() != null && theirs.cost() != null) {
				costRows(section, "lateness-" + rate, "schedule and delivery", ours.cost(), theirs.cost());
			}
			this.report.detail("lateness-" + rate, bySystem(ours, theirs));
		}
	}

	private void latenessRows(String section, Tally.Paced ours, Tally.Paced theirs) {
		this.report.row(section, "lateness p50", "ms", Better.LOWER, ms(ours.lateness().p50()),
				ms(theirs.lateness().p50()), null);
		this.report.row(section, "lateness p99", "ms", Better.LOWER, ms(ours.lateness().p99()),
				ms(theirs.lateness().p99()), null);
		this.report.row(section, "lateness p99.9", "ms", Better.LOWER, ms(ours.lateness().p999()),
				ms(theirs.lateness().p999()), null);
		this.report.row(section, "lateness max", "ms", Better.LOWER, ms(ours.lateness().max()),
				ms(theirs.lateness().max()), null);
		// where ours comes from: the due time the script stored (its TIME plus the delay, less the call's time before
		// it was sent) against the intended one, then the handler start against the stored due time (Redisson's
		// handlers are not told its due time)
		if (ours.storedLate().count() > 0) {
			this.report.row(section, "of which: stored due time − intended due time (the schedule call), p50", "ms",
					Better.LOWER, ms(ours.storedLate().p50()), null, "p99 " + ms(ours.storedLate().p99()) + " ms");
			this.report.row(section, "of which: handler start − stored due time (wake-up, claim, hand-off), p50", "ms",
					Better.LOWER, ms(ours.afterStored().p50()), null, "p99 " + ms(ours.afterStored().p99()) + " ms");
		}
		this.report.row(section, "lost", "messages", Better.LOWER, (double) ours.lost(), (double) theirs.lost(),
				"of " + ours.sent());
		this.report.row(section, "duplicated", "messages", Better.LOWER, (double) ours.duplicated(),
				(double) theirs.duplicated(), null);
		this.report.row(section, "early (before the intended due time)", "messages", Better.LOWER,
				(double) ours.early(), (double) theirs.early(), (theirs.early() == 0) ? null
						: "Redisson sets a due time on the client to the millisecond (the current millisecond plus the "
								+ "delay), up to 1 ms before the request plus the delay");
	}

	private void drain(String key, String section, @Nullable String storeNote) {
		List<DrainFigures> both = both(key, (measured) -> measured.drains().get(key));
		DrainFigures ours = both.get(0);
		DrainFigures theirs = both.get(1);
		String throughputNote = notes(ours.throughput(), theirs.throughput());
		Measurements.Network network = ours.network();
		if (network != null) {
			String rtt = String.format(Locale.ROOT, "every connection goes through a proxy adding %.1f ms each way; "
					+ "PING median of 50: %.3f ms through it, %.3f ms direct (+%.3f ms)",
					network.addedNanosEachWay() / 1e6, network.pingMicrosThroughProxy() / 1e3,
					network.pingMicrosDirect() / 1e3,
					(network.pingMicrosThroughProxy() - network.pingMicrosDirect()) / 1e3);
			throughputNote = (throughputNote == null) ? rtt : rtt + "; " + throughputNote;
		}
		this.report.row(section, "throughput, first due to last handled", "msgs/s", Better.HIGHER, ours.throughput(),
				theirs.throughput(), throughputNote);
		latenessRows(section, ours.tally(), theirs.tally());
		this.report.row(section, "time to store them (bulk form, as in 1.)", "s", Better.LOWER, ours.fillSeconds(),
				theirs.fillSeconds(), storeNote);
		costRows(section, key, "drain", ours.cost(), theirs.cost());
		this.report.detail(key, bySystem(ours, theirs));
		if (network != null) {
			this.report.detail(key + "-network", bySystem(network, theirs.network()));
		}
	}

	private void sizes() {
		for (int size : this.settings.sizes()) {
			List<Map<String, Samples.Summary>> both = both("size", (measured) -> measured.sizes().get(size));
			Map<String, Samples.Summary> ours = both.get(0);
			Map<String, Samples.Summary> theirs = both.get(1);
			String section = String.format(Locale.ROOT, "4. Cost with %,d messages waiting", size);
			for (String op : List.of("cancel", "schedule", "claim", "deliver")) {
				Samples.Summary o = ours.get(op);
				Samples.Summary t = theirs.get(op);
				String name = switch (op) {
					case "cancel" -> "cancel one waiting message (Redisson: remove)";
					case "schedule" -> "schedule one message";
					case "claim" -> "claim one due message (the claim script alone; Redisson has no such call)";
					default -> "deliver one due message: schedule with no delay → handler";
				};
				String samples = "samples: " + ((o != null) ? o.count() : 0) + " / " + ((t != null) ? t.count() : 0);
				this.report.row(section, name + ", p50", "ms", Better.LOWER, (o != null) ? ms(o.p50()) : null,
						(t != null) ? ms(t.p50()) : null, samples);
				this.report.row(section, name + ", p99", "ms", Better.LOWER, (o != null) ? ms(o.p99()) : null,
						(t != null) ? ms(t.p99()) : null, null);
			}
			this.report.detail("size-" + size, bySystem(ours, theirs));
		}
	}

	private void loss(List<List<Tally.Paced>> both) {
		List<Tally.Paced> ours = both.get(0);
		List<Tally.Paced> theirs = both.get(1);
		String section = String.format(Locale.ROOT, "5. Loss report: %d rounds × %,d messages sent 10 ms apart, "
				+ "delays %d–%d ms, a new consumer each round", this.settings.lossRounds(),
				this.settings.lossMessages(), this.settings.minDelayMillis(), this.settings.maxDelayMillis());
		for (int round = 0; round < this.settings.lossRounds(); round++) {
			Tally.Paced o = ours.get(round);
			Tally.Paced t = theirs.get(round);
			String r = "round " + (round + 1) + ": ";
			this.report.row(section, r + "received", "messages", Better.HIGHER, (double) o.received(),
					(double) t.received(), "of " + o.sent());
			this.report.row(section, r + "lost", "messages", Better.LOWER, (double) o.lost(), (double) t.lost(), null);
			this.report.row(section, r + "duplicated", "messages", Better.LOWER, (double) o.duplicated(),
					(double) t.duplicated(), null);
			this.report.row(section, r + "max |actual − intended delay|", "ms", Better.LOWER, ms(o.maxErrorMicros()),
					ms(t.maxErrorMicros()), null);
		}
		this.report.detail("loss", bySystem(ours, theirs));
	}

	/**
	 * Adds four rows (client CPU, Redis CPU, Redis commands, client calls per message) for one interval of each
	 * system, in the section's cost table, and keeps the per-command figures in the report's details under
	 * {@code costs}; the first call also adds the definitions ({@link Costs#DEFINITIONS}) to the report's notes.
	 * @param section the scenario's section
	 * @param scenario the scenario's name, such as {@code drain-slow}, for the details
	 * @param label what was measured, such as "drain"
	 * @param ours delayqueue's cost
	 * @param theirs Redisson's cost
	 */
	private void costRows(String section, String scenario, String label, Costs.Cost ours, Costs.Cost theirs) {
		if (!this.costsDefined) {
			this.costsDefined = true;
			this.report.note(Costs.DEFINITIONS);
		}
		String costs = section + " — cost per message";
		this.report.row(costs, label + ": client CPU", "µs/msg", Better.LOWER, ours.clientCpuMicros(),
				theirs.clientCpuMicros(), null);
		this.report.row(costs, label + ": Redis CPU", "µs/msg", Better.LOWER, ours.redisCpuMicros(),
				theirs.redisCpuMicros(), null);
		this.report.row(costs, label + ": bytes allocated in the system's JVM", "B/msg", Better.LOWER,
				ours.allocatedBytes(), theirs.allocatedBytes(), null);
		this.report.row(costs, label + ": Redis commands, those run inside scripts included", "calls/msg",
				Better.LOWER, ours.commands(), theirs.commands(), "most run inside scripts: " + top(ours, theirs, false));
		this.report.row(costs, label + ": client calls (commands sent by clients)", "calls/msg", Better.LOWER,
				ours.clientCalls(), theirs.clientCalls(), top(ours, theirs, true));
		this.report.details("costs").put(scenario + ": " + label, bySystem(ours, theirs));
	}

	private String top(Costs.Cost ours, Costs.Cost theirs, boolean clients) {
		return this.ours.system() + " " + top(ours, clients) + "; " + this.theirs.system() + " " + top(theirs, clients);
	}

	private static String top(Costs.Cost cost, boolean clients) {
		String listed = cost.perCommand()
			.stream()
			.filter((command) -> clients ? !command.origin().equals("script") : !command.origin().equals("client"))
			.limit(TOP_COMMANDS)
			.map((command) -> command.command() + " " + Report.format(command.perMessage()))
			.collect(Collectors.joining(", "));
		return listed.isEmpty() ? "none" : listed;
	}

	/** Two systems' figures by the systems' names, for the report's details. */
	private Map<String, Object> bySystem(Object ours, Object theirs) {
		Map<String, Object> both = new LinkedHashMap<>();
		both.put(this.ours.system(), ours);
		both.put(this.theirs.system(), theirs);
		return both;
	}

	private static Double ms(long micros) {
		return Math.round(micros / 10.0) / 100.0;
	}

}
