package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The side-by-side scenarios run in alternating pairs ({@code --pairs=N}), merged into one row per figure: each
 * system's median, with the spread of each system and the median and spread of the ratio in the row's note. On a
 * shared machine one run's ratio swings with whatever else runs; the median of pairs run in one go, the systems taking
 * turns to go first, does not drift with it.
 */
final class PairedRuns {

	private final Map<String, List<Report.Row>> byFigure = new LinkedHashMap<>();

	private int pairs;

	/** Adds one pair's rows. */
	void add(Report pair) {
		for (Report.Row row : pair.rows()) {
			this.byFigure.computeIfAbsent(row.section() + '\u0000' + row.figure(), (key) -> new ArrayList<>()).add(row);
		}
		this.pairs++;
	}

	/** Adds the merged rows to a report. */
	void addTo(Report report) {
		for (List<Report.Row> rows : this.byFigure.values()) {
			Report.Row first = rows.get(0);
			List<Double> ours = new ArrayList<>();
			List<Double> theirs = new ArrayList<>();
			List<Double> ratios = new ArrayList<>();
			for (Report.Row row : rows) {
				if (row.ours() != null) {
					ours.add(row.ours());
				}
				if (row.redisson() != null) {
					theirs.add(row.redisson());
				}
				if (row.ours() != null && row.redisson() != null && row.redisson() != 0) {
					ratios.add(row.ours() / row.redisson());
				}
			}
			StringBuilder note = new StringBuilder();
			note.append(String.format(Locale.ROOT, "median of %d alternating pairs", rows.size()));
			spread(note, "delayqueue", ours);
			spread(note, "Redisson", theirs);
			if (!ratios.isEmpty()) {
				note.append(String.format(Locale.ROOT, "; ratio %.2f× (%.2f–%.2f×)", median(ratios), min(ratios),
						max(ratios)));
			}
			String rowNote = (first.note() == null || first.note().isBlank()) ? note.toString()
					: first.note() + " (" + note + ")";
			report.row(first.section(), first.figure(), first.unit(), first.better(), median(ours), median(theirs),
					rowNote);
		}
	}

	int pairs() {
		return this.pairs;
	}

	private static void spread(StringBuilder note, String system, List<Double> values) {
		if (values.size() > 1) {
			note.append(String.format(Locale.ROOT, "; %s %s–%s", system, number(min(values)), number(max(values))));
		}
	}

	private static String number(double value) {
		return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
				: String.format(Locale.ROOT, "%.3g", value);
	}

	/** The median ({@code NaN} for none: the report reads it as not measured). */
	static @Nullable Double median(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = values.stream().filter(Objects::nonNull).sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
	}

	private static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
	}

}
