package io.github.delayqueue.faults;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A consumer application as the suite runs it, in a JVM of its own: it consumes the suite's topic with delayqueue
 * or Redisson, records each handled message in its {@link Ledger} file, prints {@code READY} once it consumes, and
 * on {@code SIGTERM} shuts down gracefully as a Spring application would.
 * <p>
 * Arguments ({@code --name=value}): {@code system} ({@code delayqueue} or {@code redisson}), {@code port},
 * {@code ledger} (file), {@code concurrency}, {@code lease-ms}, {@code max-attempts}, {@code handler-ms},
 * {@code timeout-ms} (Redis command timeout) and {@code calibrate} ({@code true} where the JVM's clock may be skewed:
 * the ledger's times are then corrected by the difference to the Redis server's clock).
 */
public final class Worker {

	private Worker() {
	}

	public static void main(String[] args) throws Exception {
		// a worker does not outlive the suite that started it, however the suite ended
		ProcessHandle.current().parent().ifPresent((suite) -> suite.onExit().thenRun(() -> Runtime.getRuntime().halt(1)));
		Map<String, String> options = parse(args);
		Settings settings = new Settings(Integer.parseInt(options.get("port")),
				Integer.parseInt(options.get("concurrency")), Long.parseLong(options.get("lease-ms")),
				Integer.parseInt(options.get("max-attempts")), Long.parseLong(options.get("handler-ms")),
				Long.parseLong(options.get("timeout-ms")), Boolean.parseBoolean(options.get("calibrate")));
		Ledger.Writer ledger = new Ledger.Writer(Path.of(options.get("ledger")));
		AutoCloseable consumer = "redisson".equals(options.get("system")) ? new RedissonConsumer(settings, ledger)
				: new DelayQueueConsumer(settings, ledger);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try {
				consumer.close();
				ledger.close();
			}
			catch (Exception ex) {
				ex.printStackTrace();
			}
		}, "graceful-shutdown"));
		System.out.println("READY");
		System.out.flush();
		Thread.currentThread().join();
	}

	private static Map<String, String> parse(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (!arg.startsWith("--") || equals < 0) {
				throw new IllegalArgumentException("Expected --name=value, got " + arg);
			}
			options.put(arg.substring(2, equals), arg.substring(equals + 1));
		}
		return options;
	}

	/**
	 * How a worker consumes.
	 *
	 * @param port the Redis server's port on loopback
	 * @param concurrency handler threads
	 * @param leaseMillis the visibility timeout
	 * @param maxAttempts attempts before a message is dead-lettered
	 * @param handlerMillis how long a handler works on a message
	 * @param timeoutMillis the Redis command timeout
	 * @param calibrate whether to correct the ledger's times to the Redis server's clock
	 */
	record Settings(int port, int concurrency, long leaseMillis, int maxAttempts, long handlerMillis,
			long timeoutMillis, boolean calibrate) {
	}

}
