package io.github.delayqueue.faults;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault suite's smoke variant, in every CI run so that it cannot rot (tagged {@code harness}: the build's
 * {@code harness-smoke} profile runs it, see the README's test commands): a consumer JVM killed, one stopped past
 * its lease with ids reused, Redis killed and restarted from its AOF, and poison messages (one of which halts its
 * JVM), each under a small steady load, and nothing lost, early or duplicated beyond what a crash explains.
 */
@Tag("harness")
class FaultSuiteSmokeTests {

	@TempDir
	Path out;

	@Test
	void theSmokeVariantLosesNothingAndDeliversNothingEarly() {
		FaultReport report = FaultSuite.run("smoke", FaultSuite.SMOKE, false);
		report.write(this.out);

		assertThat(report.rows()).hasSize(FaultSuite.SMOKE.size());
		for (FaultReport.Row row : report.rows()) {
			Rig.Outcome outcome = row.outcome();
			assertThat(outcome).as(row.fault()).isNotNull();
			Tally.Figures figures = outcome.figures();
			assertThat(figures.sent()).as(row.fault() + ": sent").isPositive();
			assertThat(figures.lost()).as(row.fault() + ": lost " + figures.lostSample()).isZero();
			assertThat(figures.unfinished()).as(row.fault() + ": unfinished " + figures.unfinishedSample()).isZero();
			assertThat(figures.early()).as(row.fault() + ": early").isZero();
			assertThat(figures.duplicated()).as(row.fault() + ": duplicates no crash explains "
					+ figures.unexplainedSample()).isEqualTo(figures.explained());
			assertThat(outcome.faults()).as(row.fault() + ": faults injected").isPositive();
			assertThat(outcome.normalDeadLettered()).as(row.fault() + ": ordinary messages dead-lettered").isZero();
			assertThat(outcome.poisonDeadLettered()).as(row.fault() + ": poison messages dead-lettered")
				.isEqualTo(outcome.poisonSent());
		}
		assertThat(report.rows()).filteredOn((row) -> row.fault().equals("poison messages"))
			.singleElement()
			.satisfies((row) -> {
				assertThat(row.outcome().poisonSent()).isEqualTo(3);
				Timeline timeline = row.outcome().timeline();
				assertThat(timeline).isNotNull();
				assertThat(timeline.buckets()).isNotEmpty();
				assertThat(timeline.buckets().stream().mapToInt(Timeline.Bucket::firsts).sum())
					.as("first deliveries after the fault started").isPositive();
				assertThat(timeline.jvms()).hasSizeGreaterThanOrEqualTo(row.outcome().crashes() + 2);
				assertThat(timeline.latest()).isNotEmpty();
			});
		assertThat(report.rows()).filteredOn((row) -> !row.fault().equals("poison messages"))
			.allSatisfy((row) -> assertThat(row.outcome().timeline()).isNull());
		assertThat(this.out.resolve("faults-smoke.md")).content().contains("| consumer crash | delayqueue |");
		assertThat(this.out.resolve("faults-smoke.json")).content().contains("\"lost\" : 0").contains("\"unfinished\" : 0")
			.contains("\"buckets\"");
		assertThat(this.out.resolve("faults-smoke.md")).content().contains("| lost | unfinished |");
	}

}
