package io.github.delayqueue.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.embedded.RedisServerProcess;

/**
 * Runs every fault against real processes on loopback under a steady load, delayqueue and, where the fault applies
 * to it, Redisson's {@code RDelayedQueue}, and prints and writes the table ({@code faults-<mode>.md} and
 * {@code .json}).
 * <p>
 * Arguments: {@code --mode=smoke|full}, {@code --out=DIR}, {@code --only=id,id} (ids: see {@link #FAULTS}). The
 * smoke variant runs {@link #SMOKE} at tiny sizes without Redisson; the full variant every fault.
 */
public final class FaultSuite {

	/** Every fault, by the id {@code --only} takes. */
	static final Map<String, Fault> FAULTS = new LinkedHashMap<>();

	/** The faults the smoke variant runs (delayqueue only): one of each kind of process it signals. */
	static final List<String> SMOKE = List.of("consumer-crash", "consumer-stall", "redis-crash-always", "poison");

	static {
		FAULTS.put("consumer-crash", new ConsumerCrash());
		FAULTS.put("consumer-stall", new ConsumerStall());
		FAULTS.put("rolling-restart", new RollingRestart());
		FAULTS.put("redis-crash-always", new RedisCrash("always"));
		FAULTS.put("redis-crash-everysec", new RedisCrash("everysec"));
		FAULTS.put("connections-normal", new DroppedConnections(false));
		FAULTS.put("connections-pubsub", new DroppedConnections(true));
		FAULTS.put("client-pause", new RedisStall(false));
		FAULTS.put("debug-sleep", new RedisStall(true));
		FAULTS.put("skewed-clocks", new SkewedClocks());
		FAULTS.put("poison", new PoisonMessages());
	}

	private FaultSuite() {
	}

	public static void main(String[] args) {
		String mode = "full";
		Path out = Path.of("target", "faults");
		List<String> only = null;
		for (String arg : args) {
			if (arg.startsWith("--mode=")) {
				mode = arg.substring("--mode=".length());
			}
			else if (arg.startsWith("--out=")) {
				out = Path.of(arg.substring("--out=".length()));
			}
			else if (arg.startsWith("--only=")) {
				only = Arrays.asList(arg.substring("--only=".length()).split(","));
			}
			else if (!arg.isBlank()) {
				throw new IllegalArgumentException("Unknown argument " + arg);
			}
		}
		boolean smoke = "smoke".equals(mode);
		FaultReport report = run(mode, (only != null) ? only : (smoke ? SMOKE : List.copyOf(FAULTS.keySet())), !smoke);
		report.write(out);
		System.out.println(report.markdown());
		System.out.println("Written to " + out.toAbsolutePath());
		System.exit(0);
	}

	/**
	 * Runs faults.
	 * @param mode {@code smoke} or {@code full}
	 * @param ids the faults' ids, in order
	 * @param redisson whether Redisson runs too, where a fault applies to it
	 * @return the table
	 */
	static FaultReport run(String mode, List<String> ids, boolean redisson) {
		Sizes sizes = Sizes.of(mode);
		FaultReport report = new FaultReport(mode);
		report.environment("date", Instant.now().toString());
		report.environment("java", System.getProperty("java.version"));
		report.environment("redis-server", redisVersion());
		report.environment("cores", Runtime.getRuntime().availableProcessors());
		report.environment("load", sizes.rate() + " msgs/s, due in " + sizes.minDelayMillis() + "–"
				+ sizes.maxDelayMillis() + " ms, " + sizes.workers() + " consumer JVMs × " + Sizes.CONCURRENCY
				+ " handlers (" + Sizes.HANDLER_MILLIS + " ms each), lease " + sizes.leaseMillis() + " ms");
		for (String id : ids) {
			Fault fault = FAULTS.get(id);
			if (fault == null) {
				throw new IllegalArgumentException("Unknown fault " + id + "; one of " + FAULTS.keySet());
			}
			String unavailable = fault.unavailable();
			if (unavailable != null) {
				log("SKIPPED " + fault.name() + ": " + unavailable);
				report.add(new FaultReport.Row(fault.name(), fault.how(sizes), "delayqueue", null,
						"skipped: " + unavailable));
				continue;
			}
			report.add(runOnce(fault, sizes, false));
			if (redisson && fault.appliesToRedisson()) {
				report.add(runOnce(fault, sizes, true));
			}
		}
		return report;
	}

	private static FaultReport.Row runOnce(Fault fault, Sizes sizes, boolean redisson) {
		String system = redisson ? "Redisson" : "delayqueue";
		log("fault: " + fault.name() + " (" + system + ")");
		Path directory;
		try {
			directory = Files.createTempDirectory("delayqueue-faults-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		long started = System.nanoTime();
		try (Rig rig = new Rig(directory, sizes, fault.setup(sizes, redisson))) {
			Rig.sleep(sizes.settle());
			if (fault.timeline()) {
				rig.traceTimeline();
			}
			fault.inject(rig);
			Rig.sleep(sizes.settle());
			Rig.Outcome outcome = rig.finish();
			log(fault.name() + " (" + system + "): " + outcome + " in "
					+ Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s");
			return new FaultReport.Row(fault.name(), fault.how(sizes), system, outcome, notes(outcome));
		}
	}

	private static String notes(Rig.Outcome outcome) {
		List<String> notes = new ArrayList<>(outcome.notes());
		if (outcome.crashes() > 0) {
			notes.add(outcome.crashes() + " JVMs crashed");
		}
		if (outcome.failedCalls() > 0) {
			notes.add(outcome.failedCalls() + " schedule calls failed during the fault (not acknowledged, not counted)");
		}
		if (outcome.poisonSent() > 0) {
			notes.add(outcome.poisonDeadLettered() + " of " + outcome.poisonSent() + " poison messages dead-lettered");
		}
		if (outcome.normalDeadLettered() > 0) {
			notes.add(outcome.normalDeadLettered() + " ordinary messages dead-lettered");
		}
		if (outcome.figures().lost() > 0) {
			notes.add("lost e.g. " + String.join(", ", outcome.figures().lostSample()));
		}
		Integer unfinished = outcome.figures().unfinished();
		if (unfinished != null && unfinished > 0) {
			notes.add("unfinished (still in Redis when the suite stopped waiting) e.g. "
					+ String.join(", ", outcome.figures().unfinishedSample()));
		}
		return String.join("; ", notes);
	}

	private static String redisVersion() {
		try {
			Process process = new ProcessBuilder(RedisServerProcess.findBinary().toString(), "--version")
				.redirectErrorStream(true)
				.start();
			String version = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			process.waitFor();
			return version.replaceAll(" sha=.*", "");
		}
		catch (IOException ex) {
			return "unknown";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "unknown";
		}
	}

	static void log(String message) {
		System.out.println(Instant.now() + " " + message);
	}

}
