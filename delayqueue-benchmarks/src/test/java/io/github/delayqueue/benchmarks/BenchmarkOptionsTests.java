package io.github.delayqueue.benchmarks;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The benchmark's command line: defaults, every option, and a clear refusal of what it cannot run.
 */
class BenchmarkOptionsTests {

	@Test
	void noArgumentsRunEveryScenarioInQuickModeOnTheEmbeddedServer() {
		BenchmarkOptions options = BenchmarkOptions.parse();
		assertThat(options.mode()).isEqualTo("quick");
		assertThat(options.scenarios()).containsExactlyElementsOf(Benchmarks.SCENARIOS);
		assertThat(options.huge()).isFalse();
		assertThat(options.redisServer()).isNull();
	}

	@Test
	void everyOptionIsRead(@TempDir Path dir) {
		BenchmarkOptions options = BenchmarkOptions.parse("--mode=full", "--out=" + dir, "--huge", " ",
				"--only=drain,ceiling", "--redis-server=/bin/sh");
		assertThat(options.mode()).isEqualTo("full");
		assertThat(options.out()).isEqualTo(dir);
		assertThat(options.huge()).isTrue();
		assertThat(options.scenarios()).containsExactly("drain", "ceiling");
		assertThat(options.redisServer()).isEqualTo(Path.of("/bin/sh"));
	}

	@Test
	void whatCannotRunIsRefusedSayingWhy(@TempDir Path dir) {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BenchmarkOptions.parse("--redis-server=" + dir.resolve("none")))
			.withMessageContaining("is not an executable file");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--only=drain,fast"))
			.withMessageContaining("--only takes some of");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--fast"))
			.withMessageContaining("Unknown argument '--fast'");
	}

}
