package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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
	void severalOptionsInOneArgumentAreEachRead() {
		// Maven passes -Dbenchmark.args="--only=production --huge" to the harness as one argument
		BenchmarkOptions options = BenchmarkOptions.parse("--mode=quick", " --only=production  --huge\t--pairs=3 ");
		assertThat(options.scenarios()).containsExactly("production");
		assertThat(options.huge()).isTrue();
		assertThat(options.pairs()).isEqualTo(3);
		assertThat(BenchmarkOptions.parse().pairs()).isOne();
		assertThat(BenchmarkOptions.parse("--stored-format=2 --only=schedule").storedFormat()).isEqualTo(2);
		assertThat(BenchmarkOptions.parse().storedFormat()).isEqualTo(5);
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--stored-format=3"))
			.withMessageContaining("--stored-format takes 2 or 5");
	}

	@Test
	void everyDocumentedArgumentIsRead() throws IOException {
		Pattern documented = Pattern.compile("-Dbenchmark\\.args=(\"[^\"]*\"|[^\\s`)]+)");
		List<String> found = new ArrayList<>();
		try (Stream<Path> pages = Files.walk(Path.of("..", "docs"))) {
			for (Path page : pages.filter((path) -> path.toString().endsWith(".md")).toList()) {
				Matcher matcher = documented.matcher(Files.readString(page));
				while (matcher.find()) {
					found.add(matcher.group(1).replace("\"", ""));
				}
			}
		}
		assertThat(found).as("documented -Dbenchmark.args values").hasSizeGreaterThan(5);
		for (String args : found) {
			// as Maven passes it (one argument), with a server binary that exists here
			String runnable = args.replaceAll("--redis-server=\\S+", "--redis-server=/bin/sh")
				.replaceAll("\\.\\.\\.", "drain");
			assertThat(BenchmarkOptions.parse("--mode=smoke", runnable).scenarios()).as(args).isNotEmpty();
		}
	}

	@Test
	void whatCannotRunIsRefusedSayingWhy(@TempDir Path dir) {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BenchmarkOptions.parse("--redis-server=" + dir.resolve("none")))
			.withMessageContaining("is not an executable file");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--only=drain,fast"))
			.withMessageContaining("--only takes some of");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--pairs=0"))
			.withMessageContaining("--pairs takes a whole number from 1 to 15, not '0'");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--pairs=many"))
			.withMessageContaining("--pairs takes");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--fast"))
			.withMessageContaining("Unknown argument '--fast'");
	}

}
