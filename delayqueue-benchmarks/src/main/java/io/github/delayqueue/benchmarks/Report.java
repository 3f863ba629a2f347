package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The figures of one run: rows of "ours beside Redisson" grouped in sections, notes, and the details each
 * scenario recorded; printed as a markdown table and written as JSON.
 */
final class Report {

	private final Map<String, Object> environment = new LinkedHashMap<>();

	private final List<Row> rows = new ArrayList<>();

	private final List<String> notes = new ArrayList<>();

	private final Map<String, Object> details = new LinkedHashMap<>();

	void environment(String key, Object value) {
		this.environment.put(key, value);
	}

	void row(String section, String figure, String unit, Better better, Double ours, Double redisson, String note) {
		// a figure not measured (NaN: a system that failed, or an operation it lacks) reads "n/a", with no ratio
		this.rows.add(new Row(section, figure, unit, better, measured(ours), measured(redisson), note));
	}

	private static Double measured(Double value) {
		return (value == null || value.isNaN()) ? null : value;
	}

	void note(String note) {
		Benchmarks.log("NOTE " + note);
		this.notes.add(note);
	}

	/** Adds notes already logged (by a system's JVM). */
	void addNotes(List<String> notes) {
		this.notes.addAll(notes);
	}

	void detail(String key, Object value) {
		this.details.put(key, value);
	}

	/** The details kept under a key as a map of their own, created on first use. */
	@SuppressWarnings("unchecked")
	Map<String, Object> details(String key) {
		return (Map<String, Object>) this.details.computeIfAbsent(key, (name) -> new LinkedHashMap<String, Object>());
	}

	List<Row> rows() {
		return this.rows;
	}

	List<String> notes() {
		return this.notes;
	}

	String markdown() {
		StringBuilder out = new StringBuilder();
		out.append("| environment | value |\n|---|---|\n");
		this.environment.forEach((key, value) -> out.append("| ").append(key).append(" | ").append(value).append(" |\n"));
		String section = null;
		for (Row row : this.rows) {
			if (!row.section().equals(section)) {
				section = row.section();
				out.append("\n### ").append(section).append("\n\n")
					.append("| figure | unit | delayqueue | Redisson | delayqueue vs Redisson | note |\n")
					.append("|---|---|---:|---:|---|---|\n");
			}
			out.append("| ").append(row.figure()).append(" | ").append(row.unit()).append(" | ")
				.append(format(row.ours())).append(" | ").append(format(row.redisson())).append(" | ")
				.append(row.comparison()).append(" | ").append((row.note() != null) ? row.note() : "").append(" |\n");
		}
		if (!this.notes.isEmpty()) {
			out.append("\nNotes:\n");
			this.notes.forEach((note) -> out.append("- ").append(note).append('\n'));
		}
		return out.toString();
	}

	void write(Path directory, String mode) {
		try {
			Files.createDirectories(directory);
			Files.writeString(directory.resolve("results-" + mode + ".md"), markdown());
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("mode", mode);
			json.put("environment", this.environment);
			json.put("rows", this.rows);
			json.put("notes", this.notes);
			json.put("details", this.details);
			JsonMapper.builder()
				.enable(SerializationFeature.INDENT_OUTPUT)
				.build()
				.writeValue(directory.resolve("results-" + mode + ".json").toFile(), json);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String format(Double value) {
		if (value == null) {
			return "n/a";
		}
		double v = value;
		if (v == Math.rint(v) && Math.abs(v) < 1e15) {
			return String.format(Locale.ROOT, "%,d", (long) v);
		}
		if (Math.abs(v) >= 100) {
			return String.format(Locale.ROOT, "%,.0f", v);
		}
		if (Math.abs(v) >= 1) {
			return String.format(Locale.ROOT, "%.2f", v);
		}
		return String.format(Locale.ROOT, "%.3f", v);
	}

	/** Which direction of a figure is better. */
	enum Better {

		/** Throughputs. */
		HIGHER,

		/** Latencies, memory, losses. */
		LOWER

	}

	/**
	 * One figure for both systems.
	 *
	 * @param section the scenario
	 * @param figure what is measured
	 * @param unit its unit
	 * @param better which direction is better
	 * @param ours delayqueue's value, or {@code null} where it has none
	 * @param redisson Redisson's value, or {@code null} where it has none
	 * @param note what the reader must know to read the row
	 */
	record Row(String section, String figure, String unit, Better better, Double ours, Double redisson, String note) {

		/**
		 * The ratio ours / Redisson in words, such as "4.20× higher (better)".
		 * @return the comparison, or "n/a"
		 */
		public String comparison() {
			if (this.ours == null || this.redisson == null) {
				return "n/a";
			}
			if (this.ours.equals(this.redisson)) {
				return "same";
			}
			if (this.redisson == 0 || this.ours == 0) {
				boolean oursBetter = (this.better == Better.HIGHER) ? this.ours > this.redisson
						: this.ours < this.redisson;
				return oursBetter ? "better" : "worse";
			}
			double ratio = this.ours / this.redisson;
			boolean oursBetter = (this.better == Better.HIGHER) ? ratio > 1 : ratio < 1;
			return String.format(Locale.ROOT, "%.2f× (%s)", ratio, oursBetter ? "better" : "worse");
		}

		/**
		 * Whether delayqueue is ahead on this row.
		 * @return {@code true} if ahead or equal, {@code false} if behind, {@code null} if there is nothing to
		 * compare
		 */
		public Boolean oursAhead() {
			if (this.ours == null || this.redisson == null) {
				return null;
			}
			return (this.better == Better.HIGHER) ? this.ours >= this.redisson : this.ours <= this.redisson;
		}

	}

}
