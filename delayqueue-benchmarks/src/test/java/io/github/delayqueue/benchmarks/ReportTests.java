package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.benchmarks.Report.Better;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the report shows what was not measured, and how the production scenario names Redis's longest command.
 */
class ReportTests {

	@Test
	void aFigureNotMeasuredReadsNotApplicableWithNoRatio() {
		Report report = new Report();
		report.row("s", "memory", "B", Better.LOWER, 246.0, Double.NaN, null);
		report.row("s", "longest", "ms", Better.LOWER, 5.5, null, null);
		assertThat(report.rows()).extracting(Report.Row::comparison).containsExactly("n/a", "n/a");
		assertThat(report.markdown()).contains("| memory | B | 246 | n/a | n/a |").doesNotContain("NaN");
	}

	@Test
	void aScriptCallIsNamedByItsKeyAndItsArgumentCount() {
		List<Object> arguments = new ArrayList<>(List.of("EVALSHA", "6b0c", "1", "dq:{t}:pending"));
		for (int i = 0; i < 27; i++) {
			arguments.add("a" + i);
		}
		// the slow log keeps 32 words: the last says how many more there were (a call of 250 schedules: the digest,
		// the key count, the key and 1,500 arguments)
		arguments.add("... (1473 more arguments)");
		assertThat(arguments).hasSize(32);
		assertThat(RedisWatch.describeCommand(arguments)).isEqualTo("EVALSHA on dq:{t}:pending with 1,500 arguments");
		assertThat(RedisWatch.describeCommand(List.of("EVALSHA", "6b0c", "1", "dq:{t}:meta", "x")))
			.isEqualTo("EVALSHA on dq:{t}:meta with 1 argument");
		assertThat(RedisWatch.describeCommand(List.of("zadd", "k", "1", "m"))).isEqualTo("ZADD");
	}

}
