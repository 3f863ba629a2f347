package io.github.delayqueue.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The suite's table: a row per fault and system, printed as markdown and written as markdown and JSON.
 */
final class FaultReport {

	private final String mode;

	private final Map<String, Object> environment = new LinkedHashMap<>();

	private final List<Row> rows = new ArrayList<>();

	FaultReport(String mode) {
		this.mode = mode;
	}

	void environment(String key, Object value) {
		this.environment.put(key, value);
	}

	void add(Row row) {
		this.rows.add(row);
	}

	List<Row> rows() {
		return this.rows;
	}

	String markdown() {
		StringBuilder out = new StringBuilder();
		out.append("| environment | value |\n|---|---|\n");
		this.environment.forEach((key, value) -> out.append("| ").append(key).append(" | ").append(value).append(" |\n"));
		out.append("\n| fault | system | faults | sent | delivered | lost | unfinished | duplicated (explained) | early "
				+ "| max lateness | time to recover | notes |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
		for (Row row : this.rows) {
			Rig.Outcome outcome = row.outcome();
			out.append("| ").append(row.fault()).append(" | ").append(row.system()).append(" | ");
			if (outcome == null) {
				out.append("– | – | – | – | – | – | – | – | – | ");
			}
			else {
				Tally.Figures figures = outcome.figures();
				out.append(outcome.faults()).append(" | ").append(figures.sent()).append(" | ")
					.append(figures.delivered()).append(" | ").append(figures.lost()).append(" | ")
					.append(unfinished(figures)).append(" | ")
					.append(figures.duplicated()).append(" (").append(figures.explained()).append(") | ")
					.append(figures.early()).append(" | ").append(seconds(figures.maxLatenessMillis())).append(" | ")
					.append(seconds(figures.recoverMillis())).append(" | ");
			}
			out.append(row.notes()).append(" |\n");
		}
		out.append("\nHow each fault is injected:\n");
		List<String> seen = new ArrayList<>();
		for (Row row : this.rows) {
			if (!seen.contains(row.fault())) {
				seen.add(row.fault());
				out.append("- **").append(row.fault()).append("**: ").append(row.how()).append('\n');
			}
		}
		return out.toString();
	}

	/** {@code n/a} where the queue cannot be asked; else the count, with the states of any. */
	static String unfinished(Tally.Figures figures) {
		if (figures.unfinished() == null) {
			return "n/a";
		}
		if (figures.unfinished() == 0) {
			return "0";
		}
		StringBuilder states = new StringBuilder();
		figures.unfinishedStates().forEach((state, count) -> states.append((states.length() > 0) ? ", " : "")
			.append(count).append(' ').append(state));
		return figures.unfinished() + " (" + states + ")";
	}

	private static String seconds(long millis) {
		return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
	}

	void write(Path directory) {
		try {
			Files.createDirectories(directory);
			Files.writeString(directory.resolve("faults-" + this.mode + ".md"), markdown());
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("mode", this.mode);
			json.put("environment", this.environment);
			json.put("rows", this.rows);
			JsonMapper.builder()
				.enable(SerializationFeature.INDENT_OUTPUT)
				.build()
				.writeValue(directory.resolve("faults-" + this.mode + ".json").toFile(), json);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One fault under one system.
	 *
	 * @param fault the fault's name
	 * @param how how it was injected
	 * @param system {@code delayqueue} or {@code Redisson}
	 * @param outcome the figures, or {@code null} if the fault could not run here
	 * @param notes what the reader needs to read the row
	 */
	record Row(String fault, String how, String system, Rig.@Nullable Outcome outcome, String notes) {
	}

}
