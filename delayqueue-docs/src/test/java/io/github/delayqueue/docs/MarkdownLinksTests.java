package io.github.delayqueue.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the Markdown pages, {@code [text](path)}, {@code [text](path#anchor)} and
 * {@code [text](#anchor)}, leads to a file that exists and, with an anchor, to a heading of that page, slugged as
 * GitHub slugs headings. Links to other sites are not followed.
 */
class MarkdownLinksTests {

	private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

	private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

	@Test
	void everyRelativeLinkAndAnchorResolves() {
		List<String> broken = new ArrayList<>();
		int checked = 0;
		Map<Path, Set<String>> anchors = new HashMap<>();
		for (Path file : MarkdownFiles.all()) {
			List<String> lines = MarkdownFiles.lines(file);
			boolean inFence = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (MarkdownFiles.isFence(line)) {
					inFence = !inFence;
					continue;
				}
				if (inFence) {
					continue;
				}
				Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
				while (link.find()) {
					String target = link.group(1);
					if (target.startsWith("<")) {
						target = target.substring(1, target.length() - 1);
					}
					if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
						continue;   // http:, https:, mailto:: another site
					}
					checked++;
					String where = MarkdownFiles.relative(file) + ":" + (i + 1) + ": (" + target + ")";
					int hash = target.indexOf('#');
					String pathPart = (hash >= 0) ? target.substring(0, hash) : target;
					String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
					Path resolved = pathPart.isEmpty() ? file : file.getParent().resolve(pathPart).normalize();
					if (!resolved.startsWith(MarkdownFiles.root()) || !Files.exists(resolved)) {
						broken.add(where + " no such file: " + MarkdownFiles.root().relativize(resolved));
						continue;
					}
					if (anchor != null) {
						if (!resolved.toString().endsWith(".md")) {
							broken.add(where + " an anchor into a file that is not Markdown");
							continue;
						}
						Set<String> headings = anchors.computeIfAbsent(resolved, MarkdownLinksTests::anchorsOf);
						if (!headings.contains(anchor)) {
							broken.add(where + " no heading '" + anchor + "' in " + MarkdownFiles.relative(resolved));
						}
					}
				}
			}
		}
		assertThat(checked).as("relative links checked").isGreaterThan(50);
		assertThat(broken).as("broken relative links (GitHub slugs: lower case, spaces to '-', punctuation "
				+ "other than '-' and '_' dropped)").isEmpty();
	}

	@Test
	void headingsAreSluggedAsGitHubSlugsThem() {
		assertThat(slug("Moving over from Redisson's `RDelayedQueue`")).isEqualTo("moving-over-from-redissons-rdelayedqueue");
		assertThat(slug("Errors, retries and dead letters")).isEqualTo("errors-retries-and-dead-letters");
		assertThat(slug("Upgrading from 0.1 (stored format 1)")).isEqualTo("upgrading-from-01-stored-format-1");
		assertThat(slug("delayqueue.listener.batch-size")).isEqualTo("delayqueuelistenerbatch-size");
		assertThat(slug("A [link](x.md) and **bold** and snake_case")).isEqualTo("a-link-and-bold-and-snake_case");
	}

	static Set<String> anchorsOf(Path file) {
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		boolean inFence = false;
		for (String line : MarkdownFiles.lines(file)) {
			if (MarkdownFiles.isFence(line)) {
				inFence = !inFence;
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (inFence || !heading.matches()) {
				continue;
			}
			String slug = slug(heading.group(2));
			int count = seen.merge(slug, 1, Integer::sum);
			anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
		}
		// explicit anchors: <a id="..."></a> or <a name="...">
		Matcher explicit = Pattern.compile("<a (?:id|name)=\"([^\"]+)\"").matcher(String.join("\n", MarkdownFiles.lines(file)));
		while (explicit.find()) {
			anchors.add(explicit.group(1));
		}
		return anchors;
	}

	/** GitHub's slug of a heading: its text as rendered, lower case, punctuation but '-' and '_' dropped, spaces to '-'. */
	static String slug(String heading) {
		String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")   // links: their text
			.replace("`", "")
			.replaceAll("\\*+", "")
			.replaceAll("<[^>]+>", "");
		text = text.toLowerCase(Locale.ROOT);
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

}
