package io.github.delayqueue.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The repository's Markdown pages: README.md, UPGRADING.md, CONTRIBUTING.md, CHANGELOG.md and every page under
 * docs/. The repository's root comes from the system property {@code docs.root} (the build sets it), else the
 * working directory's parent.
 */
final class MarkdownFiles {

	private MarkdownFiles() {
	}

	static Path root() {
		String configured = System.getProperty("docs.root");
		Path root = ((configured != null) ? Path.of(configured) : Path.of("").toAbsolutePath().getParent()).normalize();
		if (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("docs"))) {
			throw new IllegalStateException("No README.md and docs/ in " + root + ": set -Ddocs.root=<repository root>");
		}
		return root;
	}

	static List<Path> all() {
		Path root = root();
		List<Path> files = new ArrayList<>();
		for (String name : List.of("README.md", "UPGRADING.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
			if (Files.isRegularFile(root.resolve(name))) {
				files.add(root.resolve(name));
			}
		}
		try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String relative(Path file) {
		return root().relativize(file).toString();
	}

	/** Whether a line opens or closes a fenced code block (```, possibly indented, as in a list item). */
	static boolean isFence(String line) {
		return line.stripLeading().startsWith("```");
	}

}
