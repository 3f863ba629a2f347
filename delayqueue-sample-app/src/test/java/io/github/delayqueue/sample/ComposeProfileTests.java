package io.github.delayqueue.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code compose.yaml} is for development only: Spring Boot's Docker Compose support is off unless the compose
 * profile turns it on (so the embedded Redis stays the default and nothing needs Docker), and that profile then
 * starts no embedded Redis beside the container.
 */
class ComposeProfileTests {

	@Test
	void dockerComposeIsOffByDefault() throws IOException {
		PropertySource<?> defaults = load("application.yml");
		assertThat(defaults.getProperty("spring.docker.compose.enabled")).isEqualTo(false);
		assertThat(defaults.getProperty("sample.embedded-redis.enabled")).isEqualTo(true);
	}

	@Test
	void theComposeProfileUsesTheContainerInsteadOfTheEmbeddedRedis() throws IOException {
		PropertySource<?> compose = load("application-compose.yml");
		assertThat(compose.getProperty("spring.docker.compose.enabled")).isEqualTo(true);
		assertThat(compose.getProperty("sample.embedded-redis.enabled")).isEqualTo(false);
	}

	@Test
	void theComposeFileRunsARedisOnAPortDockerChooses() throws IOException {
		String compose = Files.readString(Path.of("compose.yaml"));
		assertThat(compose).contains("image: 'redis:7'").contains("- '6379'").doesNotContain("6379:6379");
	}

	private static PropertySource<?> load(String name) throws IOException {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load(name, new ClassPathResource(name));
		assertThat(sources).hasSize(1);
		return sources.get(0);
	}

}
