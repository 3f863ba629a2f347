package io.github.delayqueue.build;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The Spring Boot line a test runs on (3.5 or 4.x), and Boot's own auto-configurations by what they configure, under
 * whichever name that line gives them: Boot 4 moved most of them into modules of their own, so a test compiled once
 * runs on every line by naming them here rather than importing them.
 */
public final class BootLine {

	private BootLine() {
	}

	/**
	 * Whether the class path holds Spring Boot 3 (3.5) rather than Spring Boot 4.
	 * @return whether this is a Boot 3 run
	 */
	public static boolean isBoot3() {
		return isPresent("org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");
	}

	/**
	 * Spring Data Redis's auto-configuration.
	 * @return {@code DataRedisAutoConfiguration} (Boot 4) or {@code RedisAutoConfiguration} (Boot 3.5)
	 */
	public static Class<?> dataRedis() {
		return first("org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");
	}

	/**
	 * Jackson's auto-configuration: Jackson 3's on Boot 4, Jackson 2's on Boot 3.5.
	 * @return {@code JacksonAutoConfiguration} of the line
	 */
	public static Class<?> jackson() {
		return first("org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
				"org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration");
	}

	/**
	 * The auto-configurations of an in-memory database with transactions: the data source, its initialisation,
	 * {@code JdbcClient} and its transaction manager.
	 * @return the line's classes
	 */
	public static Class<?>[] jdbcWithTransactions() {
		if (isBoot3()) {
			return classes("org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
					"org.springframework.boot.autoconfigure.sql.init.SqlInitializationAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.JdbcClientAutoConfiguration",
					"org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
					"org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration");
		}
		return classes("org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
				"org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration");
	}

	/**
	 * Spring Data Redis's and Jackson's auto-configurations of the line, then the given ones.
	 * @param more further auto-configurations (delayqueue's, say)
	 * @return all of them, for {@code AutoConfigurations.of}
	 */
	public static Class<?>[] redisAndJackson(Class<?>... more) {
		List<Class<?>> all = new ArrayList<>(List.of(dataRedis(), jackson()));
		all.addAll(Arrays.asList(more));
		return all.toArray(new Class<?>[0]);
	}

	/**
	 * Asks a health indicator of either line (Actuator's on Boot 3.5, {@code spring-boot-health}'s on Boot 4) for its
	 * health: the two types differ by package only.
	 * @param indicator the indicator
	 * @return its status code and details
	 */
	@SuppressWarnings("unchecked")
	public static Health health(Object indicator) {
		try {
			Object health = indicator.getClass().getMethod("health").invoke(indicator);
			Object status = health.getClass().getMethod("getStatus").invoke(health);
			return new Health((String) status.getClass().getMethod("getCode").invoke(status),
					(Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Not a health indicator: " + indicator, ex);
		}
	}

	/**
	 * A health indicator's answer.
	 *
	 * @param status the status code ({@code UP}, {@code DOWN})
	 * @param details the details
	 */
	public record Health(String status, Map<String, Object> details) {
	}

	private static Class<?>[] classes(String... names) {
		return Arrays.stream(names).map(BootLine::first).toArray(Class<?>[]::new);
	}

	private static Class<?> first(String... names) {
		for (String name : names) {
			try {
				return Class.forName(name, false, BootLine.class.getClassLoader());
			}
			catch (ClassNotFoundException ex) {
				// the other line's name
			}
		}
		throw new IllegalStateException("None of " + Arrays.toString(names) + " is on the class path");
	}

	private static boolean isPresent(String name) {
		try {
			Class.forName(name, false, BootLine.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

}
