package io.github.delayqueue.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Each published module's public API is what its reviewed record ({@code <module>/api.txt}) says: a change to the API
 * fails the build until the record is written anew ({@code -Ddocs.update=true}) and committed, so that every change
 * shows in review beside the code that made it. Read from the reactor's freshly compiled classes (the build lists the
 * modules of both Spring Boot lines as this module's dependencies, so that {@code -am} compiles them first).
 */
class PublicApiTests {

	@Test
	void everyPublishedModulesApiIsItsRecord() throws IOException {
		Path root = MarkdownFiles.root();
		boolean update = Boolean.getBoolean("docs.update");
		List<String> changed = new ArrayList<>();
		for (String module : PublicApi.MODULES) {
			Path classes = root.resolve(module).resolve("target/classes");
			assertThat(classes).as("%s's compiled classes (build it first: -am)", module).isDirectory();
			String api = PublicApi.describe(classes);
			Path record = root.resolve(module).resolve(PublicApi.RECORD);
			if (update) {
				Files.writeString(record, api);
				continue;
			}
			String committed = Files.isRegularFile(record) ? Files.readString(record) : "";
			if (!committed.equals(api)) {
				changed.add(module + difference(committed, api));
			}
		}
		if (!changed.isEmpty()) {
			fail("The public API changed. If the change is meant, write the records anew, review them and commit them "
					+ "with the change:\n  " + PublicApi.REGENERATE + "\n\n" + String.join("\n\n", changed));
		}
	}

	@Test
	void theRecordListsWhatAnApplicationCanNameAndNothingElse() {
		String api = PublicApi.describe(MarkdownFiles.root().resolve("delayqueue-core/target/classes"));
		assertThat(api).contains("public interface io.github.delayqueue.DelayedQueue\n")
			.contains("\n  public default ")
			.doesNotContain("lambda$")
			.doesNotContain(" private ")
			.doesNotContain("<clinit>");
		assertThat(api.lines().filter((line) -> !line.startsWith("  ")))
			.allMatch((type) -> type.startsWith("public ") || type.startsWith("protected "));
	}

	@Test
	void everyPublicTypeHasAJavadocThatSaysSinceWhen() throws IOException {
		Path root = MarkdownFiles.root();
		List<String> missing = new ArrayList<>();
		for (String module : PublicApi.MODULES) {
			String api = PublicApi.describe(root.resolve(module).resolve("target/classes"));
			for (String header : api.lines().filter((line) -> !line.startsWith("  ")).toList()) {
				String name = Stream.of(header.split(" ")).filter((word) -> word.startsWith("io.github.")).findFirst()
					.orElseThrow();
				if (name.contains("$")) {
					// a nested type: its enclosing type's javadoc dates it
					continue;
				}
				Path source = root.resolve(module).resolve("src/main/java").resolve(name.replace('.', '/') + ".java");
				String simple = name.substring(name.lastIndexOf('.') + 1);
				if (!Files.isRegularFile(source) || !dated(Files.readString(source), simple)) {
					missing.add(module + ": " + name);
				}
			}
		}
		assertThat(missing).as("public types without a Javadoc comment that has an @since tag").isEmpty();
	}

	// whether the Javadoc comment right before the type's declaration has an @since tag
	private static boolean dated(String source, String simpleName) {
		Matcher declaration = Pattern
			.compile("(?m)^public\\s+(?:(?:final|abstract|sealed|non-sealed)\\s+)*(?:class|interface|record|enum|@interface)\\s+"
					+ Pattern.quote(simpleName) + "\\b")
			.matcher(source);
		if (!declaration.find()) {
			return false;
		}
		String before = source.substring(0, declaration.start());
		int open = before.lastIndexOf("/**");
		int close = before.lastIndexOf("*/");
		return open >= 0 && close > open && before.substring(open, close).contains("@since ");
	}

	private static String difference(String committed, String api) {
		Set<String> before = qualified(committed);
		Set<String> after = qualified(api);
		StringBuilder text = new StringBuilder(":");
		after.stream().filter((line) -> !before.contains(line)).forEach((line) -> text.append("\n+ ").append(line));
		before.stream().filter((line) -> !after.contains(line)).forEach((line) -> text.append("\n- ").append(line));
		return text.toString();
	}

	// each member line prefixed with its type's header, so that like members of different types differ
	private static Set<String> qualified(String record) {
		Set<String> lines = new LinkedHashSet<>();
		String header = "";
		for (String line : record.lines().toList()) {
			if (line.startsWith("  ")) {
				lines.add(header + " :: " + line.strip());
			}
			else {
				header = line;
				lines.add(line);
			}
		}
		return lines;
	}

}
