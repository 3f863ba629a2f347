package io.github.delayqueue.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where handlers record what they handled: one file per worker JVM, a line per handled message, written with one
 * {@code write} call as the handler finishes, so a line survives the JVM being killed right after (the operating
 * system holds it). The suite reads every file at the end of a run.
 */
final class Ledger {

	private static final String SUFFIX = ".ledger";

	private Ledger() {
	}

	/**
	 * The ledger file of a worker incarnation.
	 * @param directory the run's directory
	 * @param incarnation the incarnation's name
	 * @return its file
	 */
	static Path file(Path directory, String incarnation) {
		return directory.resolve(incarnation + SUFFIX);
	}

	/**
	 * Every delivery recorded in a run's directory.
	 * @param directory the run's directory
	 * @return the deliveries, in no particular order
	 */
	static List<Delivery> read(Path directory) {
		List<Delivery> deliveries = new ArrayList<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().endsWith(SUFFIX)).toList()) {
				String name = file.getFileName().toString();
				String incarnation = name.substring(0, name.length() - SUFFIX.length());
				for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
					String[] fields = line.split(" ");
					// a line cut short by a crash has fewer fields: its handler did not finish writing
					if (fields.length == 5 && "end".equals(fields[4])) {
						deliveries.add(new Delivery(fields[0], Integer.parseInt(fields[1]), Long.parseLong(fields[2]),
								incarnation, "r".equals(fields[3])));
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return deliveries;
	}

	/**
	 * One handled message.
	 *
	 * @param key the message's key ({@link Work#key()})
	 * @param attempt the delivery attempt the handler was given
	 * @param startedAt when the handler started, epoch milliseconds on the real clock
	 * @param incarnation the worker JVM that handled it
	 * @param redelivered whether the queue said it was delivered before without an outcome (its lease ran out: the
	 * consumer that held it died or stood still); always {@code false} for Redisson, which cannot tell
	 */
	record Delivery(String key, int attempt, long startedAt, String incarnation, boolean redelivered) {

		Delivery(String key, int attempt, long startedAt, String incarnation) {
			this(key, attempt, startedAt, incarnation, false);
		}

	}

	/** Appends deliveries to one worker's file. */
	static final class Writer implements AutoCloseable {

		private final FileChannel channel;

		Writer(Path file) {
			try {
				this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
						StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		synchronized void record(String key, int attempt, long startedAt, boolean redelivered) {
			ByteBuffer line = ByteBuffer.wrap((key + ' ' + attempt + ' ' + startedAt + ' ' + (redelivered ? 'r' : '-')
					+ " end\n").getBytes(StandardCharsets.UTF_8));
			try {
				while (line.hasRemaining()) {
					this.channel.write(line);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		public void close() throws IOException {
			this.channel.close();
		}

	}

}
