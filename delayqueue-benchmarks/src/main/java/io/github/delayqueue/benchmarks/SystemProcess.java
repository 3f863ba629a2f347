package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a system's run ({@link SystemRun}) in a JVM of its own and reads what it measured. The JVM gets this one's
 * class path and heap settings; its output goes through this JVM's.
 */
final class SystemProcess {

	/** The longest a system's run may take (the full run with {@code --huge} takes about an hour). */
	static final Duration TIME_LIMIT = Duration.ofHours(3);

	private SystemProcess() {
	}

	/**
	 * Runs one system's scenarios in a JVM of its own, with this JVM's class path and heap settings, passes on its
	 * output, and reads what it measured.
	 * @param system one of {@link SystemRun#SYSTEMS}
	 * @param port the Redis server's port on loopback
	 * @param options the run's options (its mode, {@code --huge})
	 * @param scenarios some of {@link SystemRun#SCENARIOS}
	 * @return the system's measurements, also kept in {@code measurements-<system>.json} in the output folder
	 * @throws IllegalStateException if the run fails or takes longer than {@link #TIME_LIMIT}
	 */
	static Measurements run(String system, int port, BenchmarkOptions options, List<String> scenarios) {
		Path result = options.out().toAbsolutePath().resolve("measurements-" + system + ".json");
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions());
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), SystemRun.class.getName(), system,
				Integer.toString(port), result.toString(), "--mode=" + options.mode(),
				"--only=" + String.join(",", scenarios)));
		if (options.huge()) {
			command.add("--huge");
		}
		command.add("--stored-format=" + options.storedFormat());
		Benchmarks.log("== " + system + ", in a JVM of its own");
		Process process = null;
		Thread destroyer = null;
		try {
			Files.createDirectories(result.getParent());
			Files.deleteIfExists(result);
			process = new ProcessBuilder(command).redirectErrorStream(true).start();
			Process started = process;
			// if this JVM is stopped, so is the system's
			destroyer = new Thread(started::destroyForcibly);
			Runtime.getRuntime().addShutdownHook(destroyer);
			// its output goes through this JVM's (a test's output is captured, not the process's own)
			Thread output = new Thread(() -> copy(started), system + "-output");
			output.setDaemon(true);
			output.start();
			if (!process.waitFor(TIME_LIMIT.toMinutes(), TimeUnit.MINUTES)) {
				throw new IllegalStateException(system + "'s run took longer than " + TIME_LIMIT + ": stopped");
			}
			output.join(TimeUnit.SECONDS.toMillis(10));
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						system + "'s run failed (exit code " + process.exitValue() + "): see its output");
			}
			return Measurements.read(result);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while " + system + " ran", ex);
		}
		finally {
			if (process != null) {
				process.destroyForcibly();
			}
			if (destroyer != null) {
				try {
					Runtime.getRuntime().removeShutdownHook(destroyer);
				}
				catch (IllegalStateException ex) {
					// shutting down already
				}
			}
		}
	}

	private static void copy(Process process) {
		try (InputStream in = process.getInputStream()) {
			in.transferTo(System.out);
		}
		catch (IOException ex) {
			// the process ended
		}
	}

	/**
	 * The options of this JVM that a system's JVM gets: heap and stack sizes, {@code -XX} flags (not a flight
	 * recording's) and system properties. Agents (a debugger, a coverage or profiling agent) would run in it and
	 * add to its CPU, so they are left out.
	 * @return the options, in order
	 */
	static List<String> jvmOptions() {
		return ManagementFactory.getRuntimeMXBean()
			.getInputArguments()
			.stream()
			.filter((option) -> option.startsWith("-Xms") || option.startsWith("-Xmx") || option.startsWith("-Xss")
					|| option.startsWith("-D")
					|| (option.startsWith("-XX:") && !option.startsWith("-XX:StartFlightRecording")
							&& !option.startsWith("-XX:FlightRecorderOptions")))
			.toList();
	}

}
