package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;


/**
 * What a measured interval cost per message, for the system that ran in it: this JVM's CPU, Redis's CPU, the
 * commands Redis ran (those run inside Lua scripts included) and the commands the clients sent. Each system runs in
 * a JVM of its own ({@link SystemRun}), so the process's CPU over an interval is the system's plus the harness's
 * own load (the same for both).
 * <p>
 * Redis counts a command a script runs in {@code INFO commandstats} (and in {@code total_commands_processed}) just
 * like one a client sends, so which commands come from clients is learnt once per system: {@link #learn} watches
 * {@code MONITOR} (which marks script-run commands {@code [0 lua]}) while the system's untimed warm-up runs, and the
 * measured intervals then read only {@code INFO}, which costs Redis nothing worth counting.
 */
final class Costs {

	/** How the figures are defined, for the report's notes. */
	static final String DEFINITIONS = "Cost per message: client CPU = the process CPU time of the system's JVM "
			+ "over the interval (each system runs in a JVM of its own; the harness's own share in it, such as the "
			+ "handlers' counting, is the same for both; the slow-network proxy's threads are left out; HotSpot on "
			+ "Linux reads it in 10 ms ticks) / messages. Redis CPU = the delta of used_cpu_sys + used_cpu_user "
			+ "(INFO cpu) / messages. Redis commands = the delta of all calls in INFO commandstats, which counts the "
			+ "commands run inside Lua scripts too, / messages. Client calls = the commands clients sent: the same "
			+ "delta over every command except those that MONITOR, watched during each system's untimed warm-up, "
			+ "showed being run only by scripts ([0 lua]); a command seen both ways is split in the proportion seen "
			+ "then, and one never seen counts as sent by a client (so the figure errs high). Each command counts "
			+ "once, pipelined or not: for a pipeline this is more than its network round trips. The harness's own "
			+ "INFO calls are left out of both. Schedules: the interval is the timed run (after an untimed one of the "
			+ "same shape); drains: from 0.1 s before the first due time to 0.5 s after the last message was handled "
			+ "(so late acknowledgements count), per delivered message. Bytes allocated = the delta of the heap bytes "
			+ "allocated by all the threads of the system's JVM, those ended meanwhile included (HotSpot's "
			+ "getTotalThreadAllocatedBytes), over the same interval / messages: the system's allocation plus the "
			+ "harness's own in that JVM (the same for both).";

	private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final int port;

	private final Function<String, Properties> info;

	/** Per system, per command (base name): {sent by clients, run by scripts}, as seen during the warm-up. */
	private final Map<String, Map<String, long[]>> origins = new ConcurrentHashMap<>();

	/**
	 * Creates the meter for one Redis server.
	 * @param port the server's port on loopback (for {@code MONITOR})
	 * @param info reads a section of {@code INFO}
	 */
	Costs(int port, Function<String, Properties> info) {
		this.port = port;
		this.info = info;
	}

	/**
	 * Runs some work while watching {@code MONITOR}, and remembers which commands the system's clients sent and
	 * which its scripts ran.
	 * @param system the system's name
	 * @param work what to run: the system's warm-up
	 */
	void learn(String system, Runnable work) {
		CommandMonitor monitor = new CommandMonitor(this.port);
		try {
			work.run();
		}
		finally {
			Map<String, long[]> seen = monitor.stop();
			Map<String, long[]> known = this.origins.computeIfAbsent(system, (name) -> new ConcurrentHashMap<>());
			seen.forEach((command, counts) -> known.merge(command, counts,
					(a, b) -> new long[] { a[0] + b[0], a[1] + b[1] }));
			Benchmarks.log(system + " commands (sent by clients / run by scripts) in the warm-up: "
					+ seen.entrySet().stream()
						.map((entry) -> entry.getKey() + " " + entry.getValue()[0] + "/" + entry.getValue()[1])
						.collect(Collectors.joining(", ")));
		}
	}

	/**
	 * Starts an interval.
	 * @param system the system's name
	 * @return the running interval
	 */
	Interval start(String system) {
		return start(system, () -> 0);
	}

	/**
	 * Starts an interval whose client CPU leaves out some threads of this JVM.
	 * @param system the system's name
	 * @param excludedCpuNanos the CPU time so far of the threads to leave out
	 * @return the running interval
	 */
	Interval start(String system, LongSupplier excludedCpuNanos) {
		return new Interval(system, excludedCpuNanos, snapshot(excludedCpuNanos));
	}

	private Snapshot snapshot(LongSupplier excludedCpuNanos) {
		Properties commandstats = this.info.apply("commandstats");
		Properties cpu = this.info.apply("cpu");
		long process = processCpuNanos();
		long excluded = excludedCpuNanos.getAsLong();
		Map<String, Long> calls = new LinkedHashMap<>();
		for (String key : commandstats.stringPropertyNames()) {
			if (key.startsWith("cmdstat_")) {
				calls.put(key.substring("cmdstat_".length()), field(commandstats.getProperty(key), "calls"));
			}
		}
		double redisCpu = Double.parseDouble(cpu.getProperty("used_cpu_sys", "0").trim())
				+ Double.parseDouble(cpu.getProperty("used_cpu_user", "0").trim());
		return new Snapshot(calls, redisCpu, (process >= 0) ? process - excluded : -1, allocatedBytes());
	}

	/** The heap bytes all threads of this JVM allocated so far, ended ones included; -1 where the JVM does not tell. */
	private static long allocatedBytes() {
		if (THREADS instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()
				&& sun.isThreadAllocatedMemoryEnabled()) {
			return sun.getTotalThreadAllocatedBytes();
		}
		return -1;
	}

	private static long field(String stats, String name) {
		for (String part : stats.trim().split(",")) {
			if (part.startsWith(name + "=")) {
				return Long.parseLong(part.substring(name.length() + 1));
			}
		}
		return 0;
	}

	private static long processCpuNanos() {
		return (OS instanceof com.sun.management.OperatingSystemMXBean sun) ? sun.getProcessCpuTime() : -1;
	}

	/**
	 * The share of a command's calls that clients sent, as seen during the system's warm-up.
	 */
	private double clientShare(String system, String command) {
		String base = command.contains("|") ? command.substring(0, command.indexOf('|')) : command;
		long[] seen = this.origins.getOrDefault(system, Map.of()).get(base);
		if (seen == null || seen[0] + seen[1] == 0) {
			return 1;
		}
		return seen[0] / (double) (seen[0] + seen[1]);
	}

	private String origin(String system, String command) {
		double share = clientShare(system, command);
		if (share == 1) {
			return "client";
		}
		if (share == 0) {
			return "script";
		}
		return String.format(Locale.ROOT, "both (%.0f%% from clients)", share * 100);
	}

	/**
	 * A running interval.
	 */
	final class Interval {

		private final String system;

		private final LongSupplier excludedCpuNanos;

		private final Snapshot start;

		private Interval(String system, LongSupplier excludedCpuNanos, Snapshot start) {
			this.system = system;
			this.excludedCpuNanos = excludedCpuNanos;
			this.start = start;
		}

		/**
		 * Ends the interval.
		 * @param messages the messages it handled
		 * @return its cost per message
		 */
		Cost stop(long messages) {
			Snapshot end = snapshot(this.excludedCpuNanos);
			double n = Math.max(messages, 1);
			List<CommandCalls> perCommand = new ArrayList<>();
			double commands = 0;
			double clientCalls = 0;
			for (Map.Entry<String, Long> entry : end.calls().entrySet()) {
				String command = entry.getKey();
				long calls = entry.getValue() - this.start.calls().getOrDefault(command, 0L);
				if (command.equals("info") || calls <= 0) {
					continue;
				}
				double share = clientShare(this.system, command);
				commands += calls;
				clientCalls += calls * share;
				perCommand.add(new CommandCalls(command, calls / n, origin(this.system, command)));
			}
			perCommand.sort(Comparator.comparingDouble(CommandCalls::perMessage).reversed());
			Double clientCpu = (end.processCpuNanos() >= 0 && this.start.processCpuNanos() >= 0)
					? (end.processCpuNanos() - this.start.processCpuNanos()) / 1e3 / n : null;
			Double allocated = (end.allocatedBytes() >= 0 && this.start.allocatedBytes() >= 0)
					? (end.allocatedBytes() - this.start.allocatedBytes()) / n : null;
			return new Cost(messages, clientCpu, (end.redisCpuSeconds() - this.start.redisCpuSeconds()) * 1e6 / n,
					commands / n, clientCalls / n, allocated, perCommand);
		}

	}

	/**
	 * What an interval cost, per message.
	 *
	 * @param messages the messages the interval handled
	 * @param clientCpuMicros this JVM's CPU time, in microseconds, or {@code null} where the JVM does not tell
	 * @param redisCpuMicros Redis's CPU time (system and user), in microseconds
	 * @param commands commands Redis ran, those run inside scripts included
	 * @param clientCalls commands the clients sent
	 * @param allocatedBytes heap bytes this JVM allocated, or {@code null} where the JVM does not tell
	 * @param perCommand each command's calls per message and where it came from, most first
	 */
	record Cost(long messages, Double clientCpuMicros, double redisCpuMicros, double commands, double clientCalls,
			Double allocatedBytes, List<CommandCalls> perCommand) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%,d messages, per message: client CPU %s µs, Redis CPU %.1f µs, "
					+ "%.3f commands, %.3f client calls, %s bytes allocated", this.messages,
					(this.clientCpuMicros != null) ? Report.format(this.clientCpuMicros) : "n/a", this.redisCpuMicros,
					this.commands, this.clientCalls,
					(this.allocatedBytes != null) ? Report.format(this.allocatedBytes) : "n/a");
		}

	}

	/**
	 * One command's calls per message.
	 *
	 * @param command its name in {@code INFO commandstats}
	 * @param perMessage calls per message
	 * @param origin {@code client}, {@code script}, or {@code both (n% from clients)}, as seen in the warm-up
	 */
	record CommandCalls(String command, double perMessage, String origin) {
	}

	/**
	 * Redis's counters and this JVM's CPU at one moment.
	 *
	 * @param calls calls per command ({@code INFO commandstats})
	 * @param redisCpuSeconds {@code used_cpu_sys + used_cpu_user}
	 * @param processCpuNanos this JVM's CPU time less the excluded threads', or -1 where unknown
	 * @param allocatedBytes the heap bytes this JVM's threads allocated so far, or -1 where unknown
	 */
	private record Snapshot(Map<String, Long> calls, double redisCpuSeconds, long processCpuNanos,
			long allocatedBytes) {
	}

}
