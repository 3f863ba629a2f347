package io.github.delayqueue.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every scenario on tiny sizes, so that the harness cannot rot between benchmark runs (tagged {@code harness}:
 * the build's {@code harness-smoke} profile runs it, and CI with it). Asserts what the harness must produce and what
 * our queue promises (nothing lost, nothing early), never a timing.
 */
@Tag("harness")
class BenchmarksSmokeTests {

	@Test
	void everyScenarioRunsAndReportsBothSystems(@TempDir Path out) throws Exception {
		Report report = Benchmarks.run(
				new BenchmarkOptions("smoke", out, false, new LinkedHashSet<>(Benchmarks.SCENARIOS), null, 1, 5));

		assertThat(report.rows()).extracting(Report.Row::section)
			.anyMatch((section) -> section.startsWith("1."))
			.anyMatch((section) -> section.startsWith("2."))
			.anyMatch((section) -> section.startsWith("3."))
			.anyMatch((section) -> section.startsWith("3b."))
			.anyMatch((section) -> section.startsWith("3c."))
			.anyMatch((section) -> section.startsWith("4."))
			.anyMatch((section) -> section.startsWith("5."));
		// Redisson has no rate limit: the row is ours alone, and the limit holds (generously: a two-second window)
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("6. Rate limit"))
			.singleElement()
			.satisfies((row) -> assertThat(row.ours()).isBetween(100.0, 1000.0));
		// fair delivery: ours alone, grouped beside ungrouped (Redisson has no groups)
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("7. Fair delivery"))
			.hasSize(5)
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull().isPositive();
				assertThat(row.redisson()).as(row.figure()).isNull();
			});
		// instructions per delivered message under callgrind: both systems, where valgrind is installed
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("11. Redis instructions"))
			.singleElement()
			.satisfies((row) -> {
				if (InstructionsBenchmark.available()) {
					assertThat(row.ours()).isPositive();
					assertThat(row.redisson()).isPositive();
				}
				else {
					assertThat(row.note()).contains("valgrind");
				}
			});
		// the cost of a call: ours alone, both ways, beside the floor
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("10. Cost of a call"))
			.hasSize(5)
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull().isPositive();
				assertThat(row.note()).as(row.figure()).contains("with EVALSHA").contains("floor");
			});
		// batch listeners: ours alone, one message per call beside batches, every message handled once
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("12. Batch listeners"))
			.hasSize(4)
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull().isPositive();
				assertThat(row.redisson()).as(row.figure()).isNull();
			})
			.anySatisfy((row) -> assertThat(row.note()).contains("0 duplicates").contains("1.000 handler calls"));
		// subscriptions: ours alone, one subscription's drain beside each of two, every message handled once by each;
		// the bytes of a waiting message with and without subscriptions
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("13. Subscriptions"))
			.hasSize(5)
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull().isPositive();
				assertThat(row.redisson()).as(row.figure()).isNull();
			})
			.anySatisfy((row) -> assertThat(row.note()).contains("0 duplicates").contains("2 subscription(s)"));
		// I/O-bound handlers: ours alone, non-blocking beside blocking, every message handled once
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("9. I/O-bound"))
			.hasSize(2)
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull().isPositive();
				assertThat(row.redisson()).as(row.figure()).isNull();
			})
			.anySatisfy((row) -> assertThat(row.note()).contains("0 duplicates"));
		assertThat(report.rows())
			.filteredOn((row) -> !row.figure().startsWith("claim one") && !row.section().startsWith("6. Rate limit")
					&& !row.section().startsWith("7. Fair delivery") && !row.figure().startsWith("of which")
					&& !row.section().startsWith("8. Production size") && !row.section().startsWith("9. I/O-bound")
					&& !row.section().startsWith("10. Cost of a call") && !row.section().startsWith("11. Redis instructions")
					&& !row.section().startsWith("12. Batch listeners")
					&& !row.section().startsWith("13. Subscriptions"))
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isNotNull();
				assertThat(row.redisson()).as(row.figure()).isNotNull();
			});
		// the split of our lateness: Redisson's handlers are not told its due time
		assertThat(report.rows()).filteredOn((row) -> row.figure().startsWith("of which"))
			.isNotEmpty()
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.section() + ": " + row.figure()).isNotNull();
				assertThat(row.redisson()).as(row.figure()).isNull();
			});
		// production size: every figure of ours, and Redisson's where RDelayedQueue has the operation
		assertThat(report.rows()).filteredOn((row) -> row.section().startsWith("8. Production size"))
			.isNotEmpty()
			.allSatisfy((row) -> assertThat(row.ours()).as(row.figure()).isNotNull())
			.anySatisfy((row) -> {
				assertThat(row.figure()).isEqualTo("Redis memory per waiting message");
				assertThat(row.ours()).isPositive();
				assertThat(row.redisson()).isPositive();
			})
			.anySatisfy((row) -> assertThat(row.figure()).isEqualTo("replay: Redis's longest command"))
			.anySatisfy((row) -> assertThat(row.figure()).isEqualTo("resume: Redis's longest command"));
		assertThat(report.rows()).filteredOn((row) -> row.figure().endsWith("lost") || row.figure().startsWith("early"))
			.isNotEmpty()
			.allSatisfy((row) -> assertThat(row.ours()).as(row.section() + ": " + row.figure()).isZero());
		assertThat(report.rows()).filteredOn((row) -> row.unit().equals("msgs/s"))
			.allSatisfy((row) -> assertThat(row.ours()).as(row.figure()).isPositive());
		assertThat(report.rows()).filteredOn((row) -> row.section().endsWith("cost per message"))
			.extracting((row) -> row.section().substring(0, row.section().indexOf(' ')) + " " + row.figure())
			.contains("1. bulk: client CPU", "1. asynchronous, 1 caller thread, 8 in flight: client CPU",
					"1. asynchronous, 1 caller thread, 256 in flight: Redis CPU",
					"3. drain: client calls (commands sent by clients)",
					"3b. drain: Redis CPU", "3c. drain: Redis commands, those run inside scripts included");
		assertThat(report.rows()).filteredOn((row) -> row.figure().endsWith("client calls (commands sent by clients)"))
			.allSatisfy((row) -> assertThat(row.ours()).as(row.section() + ": " + row.figure()).isPositive());

		assertThat(out.resolve("results-smoke.md")).exists();
		assertThat(Files.readString(out.resolve("results-smoke.md"))).contains("| figure | unit | delayqueue | Redisson");
		assertThat(Files.readString(out.resolve("results-smoke.json"))).contains("\"rows\"").contains("\"environment\"")
			.contains("\"drain\"")
			.contains("\"drain-random\"")
			.contains("\"drain-slow\"")
			.contains("\"costs\"");
	}

	@Test
	void alternatingPairsReportMediansWithTheirSpread(@TempDir Path out) {
		// a documented command's arguments, as Maven passes them (one argument)
		Report report = Benchmarks.run(BenchmarkOptions.parse("--mode=smoke", "--out=" + out, "--only=drain --pairs=3"));
		assertThat(report.rows()).filteredOn((row) -> row.unit().equals("msgs/s"))
			.isNotEmpty()
			.allSatisfy((row) -> {
				assertThat(row.ours()).as(row.figure()).isPositive();
				assertThat(row.redisson()).as(row.figure()).isPositive();
				assertThat(row.note()).as(row.figure()).contains("median of 3 alternating pairs").contains("ratio ");
			});
		assertThat(report.rows()).extracting((row) -> row.section() + ": " + row.figure()).doesNotHaveDuplicates();
	}

}
