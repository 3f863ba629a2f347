package io.github.delayqueue.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What Redis does during one operation of the production scenario: its CPU and memory, its script calls, and from
 * its slow log (every command kept, the latest 200,000) the calls clients sent: their longest, how many ran over a
 * millisecond and their 99th percentile. Redis also logs the commands a script runs, with no client address; those
 * are part of their call and left out.
 */
final class RedisWatch implements AutoCloseable {

	private static final Pattern MORE_ARGUMENTS = Pattern.compile("\\.\\.\\. \\((\\d+) more arguments\\)");

	private final AdminConnection admin;

	private final RedisClient client;

	/** Reads Redis's slow log (Lettuce's own API, which spring-data-redis does not offer). */
	private final StatefulRedisConnection<String, String> slowLog;

	RedisWatch(String host, int port, AdminConnection admin) {
		this.admin = admin;
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.slowLog = this.client.connect();
	}

	/** Starts watching: every command is logged from now on, and the slow log starts empty. */
	Watch start() {
		RedisCommands<String, String> redis = this.slowLog.sync();
		redis.configSet("slowlog-log-slower-than", "0");
		redis.configSet("slowlog-max-len", "200000");
		redis.slowlogReset();
		return new Watch(this.admin.cpuSeconds(), this.admin.usedMemory(), scriptCalls());
	}

	@Override
	public void close() {
		this.slowLog.close();
		this.client.shutdown();
	}

	/**
	 * The script calls Redis ran so far ({@code FCALL}, {@code EVALSHA} and {@code EVAL}, from its command
	 * statistics).
	 */
	private long scriptCalls() {
		Properties stats = this.admin.info("commandstats");
		long calls = 0;
		for (String command : List.of("cmdstat_fcall", "cmdstat_evalsha", "cmdstat_eval")) {
			String value = stats.getProperty(command);
			if (value != null) {
				calls += Long.parseLong(value.replaceAll("^calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

	/**
	 * A slow log entry's command as the report names it: for a script call its first key and how many arguments the
	 * script had after its keys (six per message for a schedule), which tell which call it was. The slow log keeps a
	 * command's first 31 words, then one saying how many more there were.
	 */
	static String describeCommand(List<?> words) {
		String name = String.valueOf(words.get(0)).toUpperCase(Locale.ROOT);
		if (!(name.startsWith("EVAL") || name.startsWith("FCALL")) || words.size() < 4) {
			return name;
		}
		int count = words.size() - 1;
		Matcher more = MORE_ARGUMENTS.matcher(String.valueOf(words.get(words.size() - 1)));
		if (more.matches()) {
			count = words.size() - 2 + Integer.parseInt(more.group(1));
		}
		// less the script's digest (or the function's name), the key count and the keys
		int scriptArguments = count - 2 - Integer.parseInt(String.valueOf(words.get(2)));
		return String.format(Locale.ROOT, "%s on %s with %,d argument%s", name, words.get(3), scriptArguments,
				(scriptArguments == 1) ? "" : "s");
	}

	/** What Redis did from a {@link #start()} on. */
	final class Watch {

		private final double cpuBefore;

		private final long memoryBefore;

		private final long scriptCallsBefore;

		private Watch(double cpuBefore, long memoryBefore, long scriptCallsBefore) {
			this.cpuBefore = cpuBefore;
			this.memoryBefore = memoryBefore;
			this.scriptCallsBefore = scriptCallsBefore;
		}

		/**
		 * What Redis did for an operation; logs its five longest calls and the commands kept by name (which calls
		 * they were: the operation's own, or a one-off).
		 * @param operation the operation's name
		 * @param messages the messages it handled
		 * @return Redis CPU and memory per message, and its calls
		 */
		Operation stop(String operation, long messages) {
			double cpu = RedisWatch.this.admin.cpuSeconds() - this.cpuBefore;
			long memory = RedisWatch.this.admin.usedMemory() - this.memoryBefore;
			long longest = 0;
			String command = "";
			long overMilli = 0;
			Samples durations = new Samples();
			TreeMap<Long, String> longestFive = new TreeMap<>();
			Map<String, Integer> byName = new TreeMap<>();
			for (Object entry : RedisWatch.this.slowLog.sync().slowlogGet(-1)) {
				List<?> fields = (List<?>) entry;
				List<?> words = (List<?>) fields.get(3);
				String name = String.valueOf(words.get(0)).toUpperCase(Locale.ROOT);
				if (name.equals("INFO") || name.startsWith("SLOWLOG") || name.equals("CONFIG")) {
					// the harness's own
					continue;
				}
				if (fields.size() > 4 && "?:0".equals(String.valueOf(fields.get(4)))) {
					// a command a script ran: part of its call
					continue;
				}
				long micros = ((Number) fields.get(2)).longValue();
				durations.add(micros);
				String described = describeCommand(words);
				byName.merge(described.replaceAll(" with .*", ""), 1, Integer::sum);
				if (micros > 1000) {
					overMilli++;
				}
				if (micros > longest) {
					longest = micros;
					command = described;
				}
				if (longestFive.size() < 5 || micros > longestFive.firstKey()) {
					longestFive.put(micros, described);
					if (longestFive.size() > 5) {
						longestFive.pollFirstEntry();
					}
				}
			}
			Benchmarks.log(operation + ": the longest commands (µs): " + longestFive.descendingMap()
					+ "; commands kept: " + byName);
			Samples.Summary summary = durations.summary();
			return new Operation(operation, cpu * 1e6 / Math.max(1, messages), memory / (double) Math.max(1, messages),
					longest, command, overMilli, summary.p99(), summary.count(), scriptCalls() - this.scriptCallsBefore);
		}

	}

	/**
	 * What Redis did during one operation.
	 *
	 * @param name the operation
	 * @param redisCpuMicrosPerMessage Redis CPU (all its threads) per message handled
	 * @param bytesPerMessage Redis memory per message handled (after less before)
	 * @param longestMicros the longest command a client sent (a script call counts as one command)
	 * @param longestCommand that command, as {@link #describeCommand} names it
	 * @param overOneMillisecond how many commands clients sent ran over a millisecond
	 * @param p99Micros the 99th percentile of their durations
	 * @param commands how many commands clients sent that the slow log kept (of its latest 200,000)
	 * @param commandsRun how many script calls Redis ran
	 */
	record Operation(String name, double redisCpuMicrosPerMessage, double bytesPerMessage, long longestMicros,
			String longestCommand, long overOneMillisecond, long p99Micros, int commands, long commandsRun) {
	}

}
