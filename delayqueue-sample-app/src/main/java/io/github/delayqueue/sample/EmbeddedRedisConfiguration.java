package io.github.delayqueue.sample;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.github.delayqueue.embedded.RedisServerProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The sample's "no Redis installed" default: when nothing answers at the configured Redis address and that address
 * is on this machine, starts the {@code redis-server} that {@code org.signal:embedded-redis} ships there before any
 * Redis connection is made, and stops it on shutdown. With a Redis already running, or a Redis Cluster or Sentinel
 * configured, uses that.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedded-redis.enabled", matchIfMissing = true)
class EmbeddedRedisConfiguration {

	static final String BEAN_NAME = "sampleEmbeddedRedis";

	@Bean(name = BEAN_NAME, destroyMethod = "close")
	EmbeddedRedis sampleEmbeddedRedis(Environment environment) {
		if (environment.containsProperty("spring.data.redis.cluster.nodes")
				|| environment.containsProperty("spring.data.redis.sentinel.master")) {
			return EmbeddedRedis.none("a Redis Cluster or Sentinel is configured");
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		return EmbeddedRedis.startIfAbsent(host, port);
	}

	@Bean
	static RedisDependsOnEmbeddedRedis redisDependsOnEmbeddedRedis() {
		return new RedisDependsOnEmbeddedRedis();
	}

	/** Makes every Redis connection factory wait for the embedded server. */
	static class RedisDependsOnEmbeddedRedis extends AbstractDependsOnBeanFactoryPostProcessor {

		RedisDependsOnEmbeddedRedis() {
			super(RedisConnectionFactory.class, BEAN_NAME);
		}

	}

	/** The embedded server, if one was started. */
	static final class EmbeddedRedis implements AutoCloseable {

		private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedis.class);

		private final RedisServerProcess server;

		private EmbeddedRedis(RedisServerProcess server) {
			this.server = server;
		}

		static EmbeddedRedis none(String reason) {
			logger.info("Not starting an embedded Redis: {}", reason);
			return new EmbeddedRedis(null);
		}

		static EmbeddedRedis startIfAbsent(String host, int port) {
			if (RedisServerProcess.isListening(host, port)) {
				logger.info("Using the Redis server at {}:{}", host, port);
				return new EmbeddedRedis(null);
			}
			if (!isLoopback(host)) {
				logger.warn("Nothing answers at {}:{}, which is not this machine; not starting an embedded Redis",
						host, port);
				return new EmbeddedRedis(null);
			}
			RedisServerProcess server = RedisServerProcess.onPort(port).start();
			logger.info("Nothing answered at {}:{}, so the sample started its own Redis there ({}). "
					+ "Its data is lost on shutdown; run a Redis server to keep it.", host, port, server);
			return new EmbeddedRedis(server);
		}

		private static boolean isLoopback(String host) {
			try {
				return InetAddress.getByName(host).isLoopbackAddress();
			}
			catch (UnknownHostException ex) {
				return false;
			}
		}

		boolean isStarted() {
			return this.server != null;
		}

		@Override
		public void close() {
			if (this.server != null) {
				logger.info("Stopping the sample's embedded Redis");
				this.server.close();
			}
		}

	}

}
