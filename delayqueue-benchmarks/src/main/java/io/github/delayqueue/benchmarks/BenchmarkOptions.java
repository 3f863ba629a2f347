package io.github.delayqueue.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The benchmark's command line: {@code --mode=smoke|quick|full}, {@code --out=DIR}, {@code --huge},
 * {@code --only=scenario,...}, {@code --redis-server=PATH} (a {@code redis-server} binary to run instead of the
 * embedded one), {@code --stored-format=2|5} (what delayqueue writes, 5 by default: pages) and {@code --pairs=N} (the side-by-side scenarios N times, the two systems alternating, reported as
 * medians with their spread). An argument holding several, separated by blanks, counts as each of them: Maven passes
 * {@code -Dbenchmark.args="--only=production --huge"} as one argument.
 *
 * @param mode the sizes' name
 * @param out the folder the report is written to
 * @param huge whether the cost-against-size run adds 10 M waiting messages
 * @param scenarios the scenarios to run, some of {@link Benchmarks#SCENARIOS}
 * @param redisServer the {@code redis-server} binary to run, or {@code null} for the embedded one
 * @param pairs how many times the side-by-side scenarios run, the systems alternating (1: once)
 * @param storedFormat the stored format delayqueue writes (RedisMessageStore.setStoredFormat)
 */
record BenchmarkOptions(String mode, Path out, boolean huge, Set<String> scenarios, @Nullable Path redisServer,
		int pairs, int storedFormat) {

	/** The most pairs a run takes (each pair runs both systems' JVMs through the scenarios). */
	static final int MAX_PAIRS = 15;

	/**
	 * Reads the command line.
	 * @param args the arguments (blank ones are skipped)
	 * @return the options, with defaults for what is not given
	 * @throws IllegalArgumentException for an unknown argument or scenario, or a server binary that cannot run
	 */
	static BenchmarkOptions parse(String... args) {
		String mode = "quick";
		Path out = Path.of("target", "benchmarks");
		boolean huge = false;
		Path redisServer = null;
		int pairs = 1;
		int storedFormat = 5;
		Set<String> scenarios = new LinkedHashSet<>(Benchmarks.SCENARIOS);
		for (String arg : words(args)) {
			if (arg.startsWith("--mode=")) {
				mode = arg.substring("--mode=".length());
			}
			else if (arg.startsWith("--out=")) {
				out = Path.of(arg.substring("--out=".length()));
			}
			else if (arg.equals("--huge")) {
				huge = true;
			}
			else if (arg.startsWith("--redis-server=")) {
				redisServer = Path.of(arg.substring("--redis-server=".length()));
				if (!Files.isExecutable(redisServer)) {
					throw new IllegalArgumentException("--redis-server: " + redisServer + " is not an executable file");
				}
			}
			else if (arg.startsWith("--stored-format=")) {
				storedFormat = switch (arg.substring("--stored-format=".length())) {
					case "2" -> 2;
					case "5" -> 5;
					default -> throw new IllegalArgumentException("--stored-format takes 2 or 5, not '"
							+ arg.substring("--stored-format=".length()) + "'");
				};
			}
			else if (arg.startsWith("--pairs=")) {
				pairs = pairs(arg.substring("--pairs=".length()));
			}
			else if (arg.startsWith("--only=")) {
				scenarios = new LinkedHashSet<>(List.of(arg.substring("--only=".length()).split(",")));
				if (!Benchmarks.SCENARIOS.containsAll(scenarios)) {
					throw new IllegalArgumentException(
							"--only takes some of " + Benchmarks.SCENARIOS + ", not " + scenarios);
				}
			}
			else {
				throw new IllegalArgumentException("Unknown argument '" + arg + "'; use --mode=smoke|quick|full, "
						+ "--out=DIR, --huge, --redis-server=PATH, --pairs=N, --stored-format=2|5, --only=" + String.join(",", Benchmarks.SCENARIOS));
			}
		}
		return new BenchmarkOptions(mode, out, huge, scenarios, redisServer, pairs, storedFormat);
	}

	/** The arguments' words: each argument split at blanks, blank ones left out. */
	private static List<String> words(String... args) {
		List<String> words = new ArrayList<>();
		for (String arg : args) {
			if (arg != null) {
				for (String word : arg.trim().split("\\s+")) {
					if (!word.isEmpty()) {
						words.add(word);
					}
				}
			}
		}
		return words;
	}

	private static int pairs(String value) {
		try {
			int pairs = Integer.parseInt(value);
			if (pairs >= 1 && pairs <= MAX_PAIRS) {
				return pairs;
			}
		}
		catch (NumberFormatException ex) {
			// refused below
		}
		throw new IllegalArgumentException("--pairs takes a whole number from 1 to " + MAX_PAIRS + ", not '" + value
				+ "'");
	}

}
