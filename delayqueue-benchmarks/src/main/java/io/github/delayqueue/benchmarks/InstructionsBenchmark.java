package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.delayqueue.embedded.RedisServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * Redis's instructions per delivered message, counted by callgrind: the one cost that does not move with the machine
 * or its load. A {@code redis-server} of its own runs under {@code valgrind --tool=callgrind --instr-atstart=no}
 * (the same binary as the other scenarios); for each system in turn, the messages are stored due in a moment with
 * counting off, then, counting on, a consumer with eight handlers takes them all; the count of that stretch, dumped
 * and read back, divided by the messages, is the figure. Both systems run in this JVM, one after the other, so the
 * counts are Redis's alone. Needs {@code valgrind} and {@code callgrind_control} on the {@code PATH} (Debian's
 * {@code valgrind} package); without them the row says so.
 */
final class InstructionsBenchmark {

	private static final String SECTION = "11. Redis instructions per delivered message (callgrind)";

	private static final int HANDLERS = 8;

	private static final Pattern TOTAL = Pattern.compile("^totals:\\s*(\\d+)", Pattern.MULTILINE);

	private final Report report;

	private final Path binary;

	private final Path out;

	private final int messages;

	InstructionsBenchmark(Report report, Path binary, Path out, int messages) {
		this.report = report;
		this.binary = binary;
		this.out = out;
		this.messages = messages;
	}

	/** Whether callgrind can run here. */
	static boolean available() {
		return onPath("valgrind") != null && onPath("callgrind_control") != null;
	}

	void run() {
		String figure = String.format(Locale.ROOT, "drain of %,d due messages, %d handlers", this.messages, HANDLERS);
		if (!available()) {
			this.report.row(SECTION, figure, "instructions", Report.Better.LOWER, Double.NaN, Double.NaN,
					"not counted: valgrind (Debian's valgrind package) is not on the PATH");
			return;
		}
		try {
			Files.createDirectories(this.out);
			int port = freePort();
			Path dumps = Files.createTempDirectory(this.out, "callgrind-");
			Process server = new ProcessBuilder("valgrind", "--tool=callgrind", "--instr-atstart=no",
					"--callgrind-out-file=" + dumps.resolve("callgrind.out"), this.binary.toString(), "--port",
					Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
				.redirectErrorStream(true)
				.redirectOutput(dumps.resolve("valgrind.log").toFile())
				.start();
			try {
				awaitListening(port, server);
				long pid = server.pid();
				double ours = perMessage(pid, dumps, port, DelayQueueSystem::new);
				double theirs = perMessage(pid, dumps, port, RedissonSystem::new);
				this.report.row(SECTION, figure, "instructions", Report.Better.LOWER, ours, theirs,
						"Redis's instructions from the first take to the last, per message (valgrind --tool=callgrind, "
								+ "counting only then); a cost the machine's speed and load do not move");
				this.report.details("instructions").putAll(Map.of("delayqueue", ours, "Redisson", theirs,
						"messages", this.messages));
			}
			finally {
				shutdown(port, server);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("The callgrind run failed: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private double perMessage(long pid, Path dumps, int port,
			BiFunction<String, Integer, QueueUnderTest> system) throws IOException, InterruptedException {
		try (QueueUnderTest queue = system.apply("127.0.0.1", port)) {
			Benchmarks.log("== instructions: " + queue.name());
			long due = System.currentTimeMillis() + 2_000;
			List<QueueUnderTest.Message> batch = new ArrayList<>(this.messages);
			for (int i = 0; i < this.messages; i++) {
				batch.add(QueueUnderTest.Message.dueAtMicros("i-" + i, due * 1000 + i));
			}
			queue.scheduleMany(batch);
			long wait = due + 500 - System.currentTimeMillis();
			if (wait > 0) {
				Thread.sleep(wait);
			}
			CountDownLatch taken = new CountDownLatch(this.messages);
			control(pid, "-z");
			control(pid, "-i", "on");
			try (QueueUnderTest.Consumer consumer = queue.consume(HANDLERS, (payload, storedDue) -> taken.countDown())) {
				if (!taken.await(30, TimeUnit.MINUTES)) {
					throw new IllegalStateException(queue.name() + " delivered " + (this.messages - taken.getCount())
							+ " of " + this.messages + " under callgrind in 30 minutes");
				}
				control(pid, "-i", "off");
			}
			long instructions = dumped(pid, dumps);
			try (AdminConnection admin = new AdminConnection("127.0.0.1", port)) {
				admin.flush();
			}
			return instructions / (double) this.messages;
		}
	}

	/** Dumps the counts since the last zeroing and reads their total from the newest dump. */
	private static long dumped(long pid, Path dumps) throws IOException, InterruptedException {
		List<Path> before = list(dumps);
		control(pid, "-d");
		for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); System.nanoTime() < deadline;) {
			for (Path dump : list(dumps)) {
				if (!before.contains(dump)) {
					Matcher total = TOTAL.matcher(Files.readString(dump));
					if (total.find()) {
						return Long.parseLong(total.group(1));
					}
				}
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("callgrind wrote no dump in " + dumps);
	}

	private static List<Path> list(Path dumps) throws IOException {
		try (Stream<Path> files = Files.list(dumps)) {
			return files.filter((file) -> file.getFileName().toString().startsWith("callgrind.out")).toList();
		}
	}

	private static void control(long pid, String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("callgrind_control"));
		command.addAll(List.of(args));
		command.add(Long.toString(pid));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("callgrind_control " + String.join(" ", args) + " failed");
		}
	}

	private static void awaitListening(int port, Process server) throws InterruptedException {
		for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); System.nanoTime() < deadline;) {
			if (!server.isAlive()) {
				throw new IllegalStateException("redis-server under valgrind ended at start, exit " + server.exitValue());
			}
			if (RedisServerProcess.isListening("127.0.0.1", port)) {
				return;
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("redis-server under valgrind did not listen on " + port + " within 60 s");
	}

	private static void shutdown(int port, Process server) throws InterruptedException {
		try (AdminConnection admin = new AdminConnection("127.0.0.1", port)) {
			admin.shutdown();
		}
		catch (RuntimeException ex) {
			// it may have gone already: the process is ended below either way
		}
		if (!server.waitFor(60, TimeUnit.SECONDS)) {
			server.destroyForcibly();
		}
	}

	private static int freePort() throws IOException {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** A command on the {@code PATH}, or {@code null}: where the harness finds the tools it runs. */
	static @Nullable Path onPath(String command) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(directory, command);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

}
