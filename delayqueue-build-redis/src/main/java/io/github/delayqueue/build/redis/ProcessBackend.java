package io.github.delayqueue.build.redis;

import io.github.delayqueue.embedded.RedisServerProcess;

/**
 * A {@link RedisServerProcess} on a free loopback port. With the system property
 * {@value #WITHOUT_FUNCTIONS} set to {@code true}, the server has no {@code FCALL} and no {@code FUNCTION} command, as
 * a Redis before 7.0 (the build runs the store's tests so once more, to check the scripts' fall back).
 */
final class ProcessBackend implements Backend {

	static final String WITHOUT_FUNCTIONS = "delayqueue.test.redis.without-functions";

	private final RedisServerProcess server;

	ProcessBackend(boolean appendOnly) {
		RedisServerProcess.Builder builder = RedisServerProcess.onFreePort().appendOnly(appendOnly);
		if (Boolean.getBoolean(WITHOUT_FUNCTIONS)) {
			builder.configLines("rename-command FCALL \"\"", "rename-command FCALL_RO \"\"",
					"rename-command FUNCTION \"\"");
		}
		this.server = builder.build();
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
