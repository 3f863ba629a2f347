package io.github.delayqueue.test.redis;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis container (Testcontainers): loaded only where Testcontainers is on the class path and a Docker engine
 * answers. Testcontainers' reaper removes it if the JVM dies before {@link #stop()}.
 */
final class ContainerServer {

	private static final int REDIS_PORT = 6379;

	private final GenericContainer<?> container;

	private ContainerServer(GenericContainer<?> container) {
		this.container = container;
	}

	@SuppressWarnings("resource")
	static ContainerServer start(String image, int databases) {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
			.withExposedPorts(REDIS_PORT)
			.withCommand("redis-server", "--save", "", "--databases", Integer.toString(databases));
		container.start();
		return new ContainerServer(container);
	}

	static boolean dockerAvailable() {
		try {
			return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	String host() {
		return this.container.getHost();
	}

	int port() {
		return this.container.getMappedPort(REDIS_PORT);
	}

	void stop() {
		this.container.stop();
	}

}
