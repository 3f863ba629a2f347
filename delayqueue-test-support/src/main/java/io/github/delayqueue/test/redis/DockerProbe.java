package io.github.delayqueue.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Whether a Docker engine answers, asked cheaply: only where Testcontainers is on the class path and something says
 * where an engine would be (a {@code DOCKER_HOST}, a Testcontainers configuration naming one, or a Docker socket
 * file), Testcontainers is asked, and for a bounded time. A machine without Docker learns it from a few file checks.
 */
final class DockerProbe {

	private DockerProbe() {
	}

	static boolean dockerAvailable(Duration timeout) {
		if (!ClassUtils.isPresent("org.testcontainers.DockerClientFactory", DockerProbe.class.getClassLoader())
				|| !engineConfiguredOrSocketPresent()) {
			return false;
		}
		CompletableFuture<Boolean> answer = CompletableFuture.supplyAsync(ContainerServer::dockerAvailable);
		try {
			return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	static boolean engineConfiguredOrSocketPresent() {
		if (hasText(System.getenv("DOCKER_HOST")) || hasText(System.getProperty("DOCKER_HOST"))
				|| testcontainersConfigured()) {
			return true;
		}
		if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("windows")) {
			// a named pipe: let Testcontainers look
			return true;
		}
		return socketCandidates().stream().anyMatch(Files::exists);
	}

	private static List<Path> socketCandidates() {
		List<Path> candidates = new ArrayList<>(List.of(Path.of("/var/run/docker.sock"), Path.of("/run/docker.sock"),
				Path.of("/var/run/podman/podman.sock")));
		String runtime = System.getenv("XDG_RUNTIME_DIR");
		if (hasText(runtime)) {
			candidates.add(Path.of(runtime, "docker.sock"));
			candidates.add(Path.of(runtime, "podman", "podman.sock"));
		}
		String home = System.getProperty("user.home");
		if (hasText(home)) {
			for (String socket : List.of(".docker/run/docker.sock", ".docker/desktop/docker.sock", ".rd/docker.sock",
					".colima/default/docker.sock", ".colima/docker.sock", ".orbstack/run/docker.sock")) {
				candidates.add(Path.of(home, socket));
			}
		}
		return candidates;
	}

	private static boolean testcontainersConfigured() {
		String home = System.getProperty("user.home");
		if (!hasText(home)) {
			return false;
		}
		Path file = Path.of(home, ".testcontainers.properties");
		if (!Files.isRegularFile(file)) {
			return false;
		}
		Properties properties = new Properties();
		try (InputStream in = Files.newInputStream(file)) {
			properties.load(in);
		}
		catch (IOException ex) {
			return false;
		}
		return hasText(properties.getProperty("docker.host"))
				|| hasText(properties.getProperty("docker.client.strategy"));
	}

	private static boolean hasText(@Nullable String value) {
		return value != null && !value.isBlank();
	}

}
