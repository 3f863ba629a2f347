package io.github.delayqueue.build.redis;

/**
 * One way of providing a Redis server. {@link #start()} may be called again after {@link #stop()} or
 * {@link #kill()} and must then serve on the same address with the same data directory.
 */
interface Backend {

	TestRedis.Kind kind();

	String host();

	int port();

	default String password() {
		return null;
	}

	default int database() {
		return 0;
	}

	void start();

	void stop();

	void kill();

	void close();

}
