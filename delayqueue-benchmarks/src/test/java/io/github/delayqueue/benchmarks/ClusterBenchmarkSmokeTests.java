package io.github.delayqueue.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the cluster benchmark on tiny sizes, so that it cannot rot between runs (tagged {@code harness}: the build's
 * {@code harness-smoke} profile runs it, and CI with it). Asserts what it must report and
 * what partitions promise (nothing lost, nothing early or twice), never a timing.
 */
@Tag("harness")
class ClusterBenchmarkSmokeTests {

	@Test
	void bothDrainsRunAndReportTheirSpread(@TempDir Path out) throws Exception {
		String markdown = ClusterBenchmark.run("smoke", out);

		assertThat(markdown).contains("| figure | unit | 1 partition(s) | 3 partition(s) |")
			.contains("| lost | messages | 0 | 0 |")
			.contains("| duplicated | messages | 0 | 0 |")
			.contains("| early | messages | 0 | 0 |")
			.contains("master 3's share of the commands")
			.contains("| acknowledged, then lost in the failover | messages |")
			.containsPattern("\\| acknowledged, then lost in the failover \\| messages \\| \\d+ \\| 0 \\|");
		assertThat(Files.readString(out.resolve("results-cluster-smoke.md"))).isEqualTo(markdown);
		assertThat(Files.readString(out.resolve("results-cluster-smoke.json"))).contains("\"commandsPerMaster\"").contains("\"failovers\"");
	}

}
