package io.github.delayqueue.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts a server's {@code redis-server} process: its command line (the configuration file, the defaults, then the
 * arguments given), in its data directory, with its output in {@code redis.out} there; and kills, when the JVM
 * exits, the processes it started that are still running, unless told to leave that to their owner.
 */
final class ServerLauncher {

	private static final Set<Process> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> running.forEach(Process::destroyForcibly), "redis-server-cleanup"));
	}

	private final Path binary;

	private final boolean appendOnly;

	private final List<String> arguments;

	private final List<String> configLines;

	private final Path directory;

	private final boolean killOnExit;

	ServerLauncher(Path binary, boolean appendOnly, List<String> arguments, List<String> configLines, Path directory,
			boolean killOnExit) {
		this.binary = binary;
		this.appendOnly = appendOnly;
		this.arguments = List.copyOf(arguments);
		this.configLines = List.copyOf(configLines);
		this.directory = directory;
		this.killOnExit = killOnExit;
	}

	/**
	 * Starts the process on a port.
	 * @param port the port on 127.0.0.1
	 * @return the process
	 * @throws UncheckedIOException if it cannot be started
	 */
	Process launch(int port) {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		if (!this.configLines.isEmpty()) {
			// a file of its own in the data directory: Sentinel rewrites its configuration file as it learns
			Path config = this.directory.resolve("redis.conf");
			try {
				if (!Files.exists(config)) {
					Files.write(config, this.configLines, StandardCharsets.UTF_8);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			command.add(config.toString());
		}
		command.addAll(List.of("--port", Integer.toString(port),
				"--bind", "127.0.0.1", "--protected-mode", "no", "--daemonize", "no", "--save", "", "--dir",
				this.directory.toString(), "--logfile", "redis.log"));
		if (this.appendOnly) {
			command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
		}
		command.addAll(this.arguments);
		try {
			Process started = new ProcessBuilder(command).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("redis.out").toFile())
				.start();
			if (this.killOnExit) {
				running.add(started);
			}
			return started;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + this.binary, ex);
		}
	}

	/**
	 * Forgets a process that has exited (or was killed): the JVM's exit no longer needs to kill it.
	 * @param process the process
	 */
	static void exited(Process process) {
		running.remove(process);
	}

}
