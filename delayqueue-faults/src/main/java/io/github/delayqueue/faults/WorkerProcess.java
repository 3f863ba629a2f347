package io.github.delayqueue.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

/**
 * One worker JVM the suite started: it is only ever signalled by its own pid ({@code SIGKILL}, {@code SIGTERM},
 * {@code SIGSTOP}, {@code SIGCONT}).
 */
final class WorkerProcess {

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

	private final String incarnation;

	private final Process process;

	private final Path log;

	private final long launchedAt = System.currentTimeMillis();

	private volatile long readyAt;

	private volatile long exitedAt;

	private volatile boolean crashed;

	private WorkerProcess(String incarnation, Process process, Path log) {
		this.incarnation = incarnation;
		this.process = process;
		this.log = log;
		process.onExit().thenRun(() -> this.exitedAt = System.currentTimeMillis());
	}

	/**
	 * Makes the class-data archive every later worker starts from, once per suite: a worker that starts, consumes
	 * and shuts down gracefully, with {@code -XX:ArchiveClassesAtExit}. A worker's start then loads its classes from
	 * the archive (about half of its start-up on this machine), as an application started with a CDS archive does;
	 * the restarts after a crash, which the poison row counts in its lateness, are the rig's, not the queue's. Without
	 * an archive (it could not be made), workers start as before.
	 * @param directory the run's directory
	 * @param environment the worker's environment
	 * @param arguments a worker's arguments, without {@code ledger}
	 */
	static synchronized void prepareArchive(Path directory, Map<String, String> environment, List<String> arguments) {
		if (archive != null || archiveTried) {
			return;
		}
		archiveTried = true;
		try {
			Path file = Files.createTempDirectory("delayqueue-faults-cds-").resolve("workers.jsa");
			WorkerProcess worker = start(directory, "archive", environment, arguments,
					"-XX:ArchiveClassesAtExit=" + file)
				.awaitReady();
			worker.terminate();
			if (Files.size(file) > 0) {
				archive = file;
			}
		}
		catch (IOException | RuntimeException ex) {
			FaultSuite.log("No class-data archive for the workers (" + ex.getMessage() + "); they start without one");
		}
	}

	private static volatile @Nullable Path archive;

	private static @Nullable String classPath;

	/**
	 * This JVM's class path for the workers, with each folder of classes (the reactor's modules, when the suite runs
	 * from a build) copied into a jar once: a class-data archive takes classes from jars only.
	 * @return the class path
	 */
	private static synchronized String workerClassPath() {
		if (classPath == null) {
			List<String> entries = new ArrayList<>();
			for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
				Path path = Path.of(entry);
				entries.add(Files.isDirectory(path) ? jarOf(path).toString() : entry);
			}
			classPath = String.join(File.pathSeparator, entries);
		}
		return classPath;
	}

	private static Path jarOf(Path folder) {
		try {
			Path jar = Files.createTempFile("delayqueue-faults-classes-", ".jar");
			try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
					Stream<Path> files = Files.walk(folder)) {
				for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
					out.putNextEntry(new JarEntry(folder.relativize(file).toString().replace(File.separatorChar, '/')));
					Files.copy(file, out);
					out.closeEntry();
				}
			}
			jar.toFile().deleteOnExit();
			return jar;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not copy " + folder + " into a jar", ex);
		}
	}

	private static boolean archiveTried;

	/**
	 * Starts a worker JVM on this JVM's class path; {@link #awaitReady()} waits until it consumes.
	 * @param directory the run's directory (ledger and log files)
	 * @param incarnation a name unique in the run
	 * @param environment variables added to the JVM's environment (e.g. libfaketime's), or none
	 * @param arguments the worker's arguments, without {@code ledger}
	 * @return the running worker
	 */
	static WorkerProcess start(Path directory, String incarnation, Map<String, String> environment,
			List<String> arguments) {
		Path archive = WorkerProcess.archive;
		return (archive != null) ? start(directory, incarnation, environment, arguments,
				"-XX:SharedArchiveFile=" + archive) : start(directory, incarnation, environment, arguments, null);
	}

	private static WorkerProcess start(Path directory, String incarnation, Map<String, String> environment,
			List<String> arguments, @Nullable String classData) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
		if (classData != null) {
			command.add(classData);
		}
		command.addAll(List.of("-cp",
				workerClassPath(), Worker.class.getName()));
		command.addAll(arguments);
		command.add("--ledger=" + Ledger.file(directory, incarnation));
		Path log = directory.resolve(incarnation + ".log");
		try {
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile());
			builder.environment().putAll(environment);
			return new WorkerProcess(incarnation, builder.start(), log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a worker JVM", ex);
		}
	}

	/**
	 * Waits until the worker consumes.
	 * @return this worker
	 * @throws IllegalStateException if it exited first
	 */
	WorkerProcess awaitReady() {
		Awaitility.await(this.incarnation + " ready")
			.atMost(READY_TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				if (!this.process.isAlive()) {
					throw new IllegalStateException(this.incarnation + " exited before it was ready: " + tail());
				}
				return Files.readString(this.log, StandardCharsets.UTF_8).contains("READY");
			});
		this.readyAt = System.currentTimeMillis();
		return this;
	}

	/**
	 * Whether the worker consumes yet, without waiting (a supervisor looks at each of its slots in turn).
	 * @return {@code true} once it has said so
	 */
	boolean ready() {
		if (this.readyAt != 0) {
			return true;
		}
		try {
			if (Files.readString(this.log, StandardCharsets.UTF_8).contains("READY")) {
				this.readyAt = System.currentTimeMillis();
				return true;
			}
			return false;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * When the worker was seen ready.
	 * @return epoch milliseconds, or 0 if it is not yet
	 */
	long readyAt() {
		return this.readyAt;
	}

	String incarnation() {
		return this.incarnation;
	}

	/**
	 * When it was started, became ready and ended, for the timeline.
	 * @return its lifetime, epoch milliseconds (ready and exit {@code null} where they did not happen, or the exit
	 * was not seen yet)
	 */
	Timeline.Jvm lifetime() {
		return new Timeline.Jvm(this.incarnation, this.launchedAt, (this.readyAt != 0) ? this.readyAt : null,
				(this.exitedAt != 0) ? this.exitedAt : null, this.crashed);
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Whether this worker died without being asked to stop gracefully (killed, or halted by a poison).
	 * @return {@code true} if it crashed
	 */
	boolean crashed() {
		return this.crashed;
	}

	/** Marks this worker as one whose in-flight work may be redone (it crashed or stalled past its lease). */
	void markCrashed() {
		this.crashed = true;
	}

	/** {@code kill -9}, and waits until it is gone. */
	void kill() {
		this.crashed = true;
		this.process.destroyForcibly();
		awaitExit(Duration.ofSeconds(10));
	}

	/** {@code SIGTERM}: the worker shuts down gracefully; waits until it has. */
	void terminate() {
		this.process.destroy();
		if (!awaitExit(Duration.ofSeconds(60))) {
			throw new IllegalStateException(this.incarnation + " did not shut down within 60 s: " + tail());
		}
		if (this.process.exitValue() != 143 && this.process.exitValue() != 0) {
			throw new IllegalStateException(this.incarnation + " exited with " + this.process.exitValue() + ": "
					+ tail());
		}
	}

	/** {@code SIGSTOP}: the JVM stands still, as in a long GC pause. */
	void pause() {
		signal("STOP");
	}

	/** {@code SIGCONT}. */
	void resume() {
		signal("CONT");
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private boolean awaitExit(Duration timeout) {
		try {
			return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * The end of the worker's output, for error messages.
	 * @return up to its last 2,000 characters
	 */
	String tail() {
		try {
			String out = Files.readString(this.log, StandardCharsets.UTF_8);
			return out.substring(Math.max(0, out.length() - 2_000));
		}
		catch (IOException ex) {
			return "(no output: " + ex.getMessage() + ")";
		}
	}

}
