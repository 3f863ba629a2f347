package io.github.delayqueue.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java in the Markdown pages is compiled: a {@code java} block follows a marker
 * {@code <!-- snippet: path/File.java#tag -->} and is, line for line, the region of that compiled source between
 * {@code // tag::tag[]} and {@code // end::tag[]} (several regions of one tag are joined; tabs count as four spaces;
 * the common indentation is dropped). A block that cannot be compiled here (another library's API, shown for
 * comparison) says why, in a marker {@code <!-- not compiled: reason -->}. A {@code kotlin} block after a marker is
 * the region of a compiled {@code .kt} source in the same way (one without a marker, such as a Gradle build script, is
 * not checked).
 */
class MarkdownSnippetsTests {

	private static final Pattern SNIPPET = Pattern.compile("\\s*<!-- snippet: (\\S+)#(\\S+) -->\\s*");

	private static final Pattern NOT_COMPILED = Pattern.compile("\\s*<!-- not compiled: .+ -->\\s*");

	@Test
	void everyJavaBlockIsItsCompiledRegionOrSaysWhyItIsNot() {
		List<String> problems = new ArrayList<>();
		int quoted = 0;
		for (Path file : MarkdownFiles.all()) {
			List<String> lines = MarkdownFiles.lines(file);
			boolean inFence = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (!MarkdownFiles.isFence(line)) {
					continue;
				}
				if (inFence) {
					inFence = false;
					continue;
				}
				inFence = true;
				String where = MarkdownFiles.relative(file) + ":" + (i + 1);
				String marker = previousNonBlank(lines, i);
				Matcher snippet = SNIPPET.matcher(marker);
				boolean isSnippet = snippet.matches();
				boolean isJava = line.strip().equals("```java");
				boolean isKotlin = line.strip().equals("```kotlin");
				if (isSnippet) {
					String path = snippet.group(1);
					if (!(isJava && path.endsWith(".java")) && !(isKotlin && path.endsWith(".kt"))) {
						problems.add(where + ": a snippet marker before a block that is not ```java (of a .java file) "
								+ "or ```kotlin (of a .kt file)");
						continue;
					}
					List<String> block = block(lines, i);
					String problem = compare(snippet.group(1), snippet.group(2), block);
					if (problem != null) {
						problems.add(where + ": " + problem);
					}
					quoted++;
				}
				else if (isJava && !NOT_COMPILED.matcher(marker).matches()) {
					problems.add(where + ": a ```java block without <!-- snippet: path#tag --> (or "
							+ "<!-- not compiled: reason -->) right before it");
				}
			}
		}
		assertThat(quoted).as("snippets quoted from compiled sources").isGreaterThan(15);
		assertThat(problems).as("Java blocks of the Markdown pages that are not their compiled region").isEmpty();
	}

	@Test
	void aRegionIsItsLinesWithoutTheTagLinesAndTheCommonIndentation() {
		List<String> source = List.of("class A {", "\t// tag::x[]", "\tvoid a() {", "\t\tb();", "\t// tag::y[]",
				"\t}", "\t// end::y[]", "\t// end::x[]", "\t// tag::x[]", "\tint c;", "\t// end::x[]", "}");
		assertThat(region(source, "x")).containsExactly("void a() {", "    b();", "}", "int c;");
		assertThat(region(source, "y")).containsExactly("}");
		assertThat(region(source, "z")).isEmpty();
	}

	private static String compare(String path, String tag, List<String> block) {
		Path source = MarkdownFiles.root().resolve(path).normalize();
		if (!Files.isRegularFile(source)) {
			return "no such source: " + path;
		}
		List<String> region = region(MarkdownFiles.lines(source), tag);
		if (region.isEmpty()) {
			return "no region 'tag::" + tag + "[]' in " + path;
		}
		List<String> quoted = dedent(block);
		for (int i = 0; i < Math.max(region.size(), quoted.size()); i++) {
			String expected = (i < region.size()) ? region.get(i) : "<end of region>";
			String actual = (i < quoted.size()) ? quoted.get(i) : "<end of block>";
			if (!expected.equals(actual)) {
				return "the block differs from " + path + "#" + tag + " at its line " + (i + 1) + ":\n    source: "
						+ expected + "\n    page:   " + actual + "\n  (copy the region into the page: between the "
						+ "tag lines, tabs as four spaces, without the common indentation)";
			}
		}
		return null;
	}

	static List<String> region(List<String> source, String tag) {
		List<String> lines = new ArrayList<>();
		boolean in = false;
		for (String line : source) {
			String stripped = line.strip();
			if (stripped.equals("// tag::" + tag + "[]")) {
				in = true;
			}
			else if (stripped.equals("// end::" + tag + "[]")) {
				in = false;
			}
			else if (in && !stripped.matches("// (tag|end)::\\S+\\[\\]")) {
				lines.add(line);
			}
		}
		return dedent(lines);
	}

	private static List<String> block(List<String> lines, int fence) {
		List<String> block = new ArrayList<>();
		for (int i = fence + 1; i < lines.size() && !MarkdownFiles.isFence(lines.get(i)); i++) {
			block.add(lines.get(i));
		}
		return block;
	}

	private static List<String> dedent(List<String> lines) {
		List<String> expanded = lines.stream().map((line) -> line.replace("\t", "    ").stripTrailing()).toList();
		int indent = expanded.stream()
			.filter((line) -> !line.isEmpty())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		return expanded.stream().map((line) -> line.isEmpty() ? line : line.substring(indent)).toList();
	}

	private static String previousNonBlank(List<String> lines, int index) {
		for (int i = index - 1; i >= 0; i--) {
			if (!lines.get(i).isBlank()) {
				return lines.get(i);
			}
		}
		return "";
	}

}
