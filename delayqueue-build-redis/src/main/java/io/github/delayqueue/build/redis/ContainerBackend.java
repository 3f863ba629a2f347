package io.github.delayqueue.build.redis;

import java.util.ArrayList;
import java.util.List;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import org.springframework.test.util.TestSocketUtils;

/**
 * A {@code redis:7} container. Its port is bound to a fixed free host port, so a stopped and started container
 * serves on the same address.
 */
final class ContainerBackend implements Backend {

	private static final String IMAGE = "redis:7";

	private final int port = TestSocketUtils.findAvailableTcpPort();

	private final GenericContainer<?> container;

	private boolean created;

	@SuppressWarnings("resource")
	ContainerBackend(boolean appendOnly) {
		List<String> command = new ArrayList<>(List.of("redis-server", "--save", ""));
		if (appendOnly) {
			command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
		}
		this.container = new GenericContainer<>(IMAGE).withCommand(command.toArray(String[]::new))
			.withExposedPorts(6379)
			.withCreateContainerCmdModifier((cmd) -> cmd.getHostConfig()
				.withPortBindings(new PortBinding(new Ports.Binding("127.0.0.1", Integer.toString(this.port)),
						ExposedPort.tcp(6379))))
			.waitingFor(Wait.forListeningPort());
	}

	static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

	@Override
	public TestRedis.Kind kind() {
		return TestRedis.Kind.CONTAINER;
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public void start() {
		if (!this.created) {
			this.container.start();
			this.created = true;
		}
		else {
			this.container.getDockerClient().startContainerCmd(this.container.getContainerId()).exec();
		}
	}

	@Override
	public void stop() {
		this.container.getDockerClient().stopContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void kill() {
		this.container.getDockerClient().killContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
