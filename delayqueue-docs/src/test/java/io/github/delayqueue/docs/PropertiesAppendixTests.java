package io.github.delayqueue.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.docs.PropertiesAppendix.Property;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * docs/reference/properties.md is what {@link PropertiesAppendix} makes of the configuration metadata on the class
 * path (the reactor's freshly built modules, with {@code -am}), and every property has a description.
 * {@code -Ddocs.update=true} rewrites the page instead of failing.
 */
class PropertiesAppendixTests {

	@Test
	void everyModuleWithPropertiesIsRead() {
		Map<String, List<Property>> modules = PropertiesAppendix.read();
		assertThat(modules).containsKeys("delayqueue-autoconfigure", "delayqueue-dashboard", "delayqueue-migration");
		assertThat(modules.get("delayqueue-autoconfigure")).extracting(Property::name)
			.contains("delayqueue.key-prefix", "delayqueue.listener.concurrency", "management.endpoint.delayqueue.access");
	}

	@Test
	void everyPropertyHasADescription() {
		List<String> undescribed = PropertiesAppendix.read().values().stream()
			.flatMap(List::stream)
			.filter((property) -> property.description().isBlank())
			.map((property) -> property.module() + ": " + property.name())
			.toList();
		assertThat(undescribed).as("properties without a description (write the field's Javadoc, or a description "
				+ "in META-INF/additional-spring-configuration-metadata.json)").isEmpty();
	}

	@Test
	void deprecatedPropertiesAreListedWithTheirReplacement() {
		Property deprecated = new Property("delayqueue-x", "delayqueue.x.old-tick", "Duration", "", "Old tick.",
				List.of(), true, "delayqueue.x.tick", "1.1", "");
		Property current = new Property("delayqueue-x", "delayqueue.x.tick", "Duration", "10ms", "Tick | wheel.",
				List.of(), false, "", "", "");
		String page = PropertiesAppendix.generate(Map.of("delayqueue-x", List.of(current, deprecated)));
		assertThat(page).contains("| `delayqueue.x.tick` | `Duration` | `10ms` | Tick \\| wheel. |")
			.contains("| `delayqueue.x.old-tick` | `delayqueue.x.tick` | 1.1 | Old tick. |");
		assertThat(page.indexOf("delayqueue.x.old-tick")).isGreaterThan(page.indexOf("Deprecated, still read"));
	}

	@Test
	void theCommittedPageIsUpToDate() throws IOException {
		Path page = MarkdownFiles.root().resolve(PropertiesAppendix.PATH);
		String generated = PropertiesAppendix.generate(PropertiesAppendix.read());
		if (Boolean.getBoolean("docs.update")) {
			Files.writeString(page, generated);
			return;
		}
		String committed = Files.isRegularFile(page) ? Files.readString(page) : "";
		if (!committed.equals(generated)) {
			fail(PropertiesAppendix.PATH + " is not what the configuration metadata gives (a property was added, "
					+ "changed or described anew). Regenerate it and commit the result:\n  " + PropertiesAppendix.REGENERATE);
		}
	}

}
