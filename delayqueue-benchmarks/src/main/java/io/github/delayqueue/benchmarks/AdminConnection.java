package io.github.delayqueue.benchmarks;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisServerCommands;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The harness's own connection to the Redis server under test: reads {@code INFO} and empties the server between
 * runs. Neither system uses it.
 */
final class AdminConnection implements AutoCloseable {

	/** More commands than this in half a second of a quiet check mean that another load runs. */
	static final long QUIET_COMMANDS = 50;

	private final LettuceConnectionFactory factory;

	AdminConnection(String host, int port) {
		this.factory = DelayQueueSystem.connectionFactory(host, port);
	}

	/** Reads a section of {@code INFO}; empty where Redis returned nothing. */
	Properties info(String section) {
		try (RedisConnection connection = this.factory.getConnection()) {
			Properties properties = connection.serverCommands().info(section);
			return (properties != null) ? properties : new Properties();
		}
	}

	long commandsProcessed() {
		return Long.parseLong(info("stats").getProperty("total_commands_processed", "0").trim());
	}

	/**
	 * The commands Redis processed in half a second while the harness waited (its own {@code INFO} left out):
	 * above {@link #QUIET_COMMANDS}, something else sends commands.
	 */
	long commandsWhileIdle() {
		long before = commandsProcessed();
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
		return commandsProcessed() - before - 1;
	}

	/** The CPU Redis has used so far ({@code used_cpu_sys + used_cpu_user}), in seconds. */
	double cpuSeconds() {
		Properties cpu = info("cpu");
		return Double.parseDouble(cpu.getProperty("used_cpu_sys", "0").trim())
				+ Double.parseDouble(cpu.getProperty("used_cpu_user", "0").trim());
	}

	long usedMemory() {
		return Long.parseLong(info("memory").getProperty("used_memory", "0").trim());
	}

	/** Empties the server ({@code FLUSHALL}). */
	void flush() {
		try (RedisConnection connection = this.factory.getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	/** Stops the server without saving ({@code SHUTDOWN NOSAVE}): for a server the harness started itself. */
	void shutdown() {
		try (RedisConnection connection = this.factory.getConnection()) {
			connection.serverCommands().shutdown(RedisServerCommands.ShutdownOption.NOSAVE);
		}
	}

	@Override
	public void close() {
		this.factory.destroy();
	}

}
