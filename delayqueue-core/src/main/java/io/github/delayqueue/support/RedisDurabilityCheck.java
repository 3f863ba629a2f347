package io.github.delayqueue.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * A start-up check of the Redis settings that lose accepted messages: an eviction policy other than
 * {@code noeviction}, and no append-only file. It warns (once, when the application's beans exist) and never fails
 * start-up: a development Redis may well run without persistence. Spring Boot applications get it auto-configured;
 * others declare it as a bean.
 *
 * @since 1.0.0
 */
public class RedisDurabilityCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(RedisDurabilityCheck.class);

	private final RedisConnectionFactory connectionFactory;

	/**
	 * Creates the check.
	 * @param connectionFactory the connection factory the queue uses
	 */
	public RedisDurabilityCheck(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		warnings().forEach(logger::warn);
	}

	/**
	 * What the Redis server's settings risk, one sentence each; none if it keeps what it accepted (or if its settings
	 * cannot be read: {@code CONFIG GET} may be disabled).
	 * @return the warnings
	 */
	public List<String> warnings() {
		List<String> warnings = new ArrayList<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			String policy = config(connection, "maxmemory-policy");
			if (policy != null && !"noeviction".equalsIgnoreCase(policy)) {
				warnings.add("Redis maxmemory-policy is '" + policy + "': under memory pressure Redis may evict "
						+ "delayqueue keys and lose messages. Set maxmemory-policy to 'noeviction'.");
			}
			if ("no".equalsIgnoreCase(config(connection, "appendonly"))) {
				warnings.add("Redis appendonly is 'no': if Redis restarts, messages accepted since its last snapshot "
						+ "are lost. Set appendonly to 'yes' (appendfsync 'always' loses none, 'everysec' up to a "
						+ "second) where accepted messages must survive a restart.");
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read Redis persistence settings (CONFIG GET may be disabled)", ex);
		}
		return warnings;
	}

	private static @Nullable String config(RedisConnection connection, String name) {
		Properties config = connection.serverCommands().getConfig(name);
		return (config != null) ? config.getProperty(name) : null;
	}

}
