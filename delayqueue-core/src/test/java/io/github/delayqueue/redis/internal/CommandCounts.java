package io.github.delayqueue.redis.internal;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.delayqueue.build.redis.TestRedis;

/**
 * Counts the commands a Redis server ran, by name, from {@code INFO commandstats} deltas: Redis counts a command a
 * script runs just like one a client sends, so a script call's count is the commands its script ran. Connection set-up
 * and the counting itself ({@code INFO}, {@code HELLO}, {@code CLIENT}, ...) and the script calls themselves
 * ({@code FCALL}, {@code EVALSHA}, {@code EVAL}, and the library's {@code FUNCTION LOAD}) are left out. Meant for a test's own server, with nothing else running on it.
 */
final class CommandCounts {

	private static final Set<String> LEFT_OUT = Set.of("info", "hello", "client", "select", "auth", "ping", "command",
			"config", "evalsha", "eval", "script", "fcall", "function", "flushdb", "keys");

	private final TestRedis redis;

	private Map<String, Long> before;

	CommandCounts(TestRedis redis) {
		this.redis = redis;
		this.before = read();
	}

	/** The commands run since the last call (or since this was made), by name; then counts from now. */
	Map<String, Long> sinceLast() {
		Map<String, Long> now = read();
		Map<String, Long> delta = new TreeMap<>();
		now.forEach((name, calls) -> {
			long d = calls - this.before.getOrDefault(name, 0L);
			if (d > 0 && !LEFT_OUT.contains(name.split("\\|")[0])) {
				delta.put(name, d);
			}
		});
		this.before = now;
		return delta;
	}

	static long total(Map<String, Long> counts) {
		return counts.values().stream().mapToLong(Long::longValue).sum();
	}

	private Map<String, Long> read() {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			int colon = line.indexOf(':');
			String name = line.substring("cmdstat_".length(), colon);
			for (String field : line.substring(colon + 1).split(",")) {
				if (field.startsWith("calls=")) {
					calls.put(name, Long.parseLong(field.substring("calls=".length())));
				}
			}
		}
		return calls;
	}

}
