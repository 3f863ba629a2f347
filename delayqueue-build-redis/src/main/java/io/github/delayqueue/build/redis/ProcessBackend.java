package io.github.delayqueue.build.redis;

import io.github.delayqueue.embedded.RedisServerProcess;

/** A {@link RedisServerProcess} on a free loopback port. */
final class ProcessBackend implements Backend {

	private final RedisServerProcess server;

	ProcessBackend(boolean appendOnly) {
		this.server = RedisServerProcess.onFreePort().appendOnly(appendOnly).build();
	}

	@Override
	public TestRedis.Kind kind() {
		return TestRedis.Kind.PROCESS;
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.server.port();
	}

	@Override
	public void start() {
		this.server.start();
	}

	@Override
	public void stop() {
		this.server.stop();
	}

	@Override
	public void kill() {
		this.server.kill();
	}

	@Override
	public void close() {
		this.server.close();
	}

}
