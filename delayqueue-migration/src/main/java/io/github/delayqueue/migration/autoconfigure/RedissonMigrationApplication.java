package io.github.delayqueue.migration.autoconfigure;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs the Redisson migration as a program and exits: 0 when it succeeded, non-zero when it failed (the log says
 * why). Redis is {@code spring.data.redis.*}, the rest {@code delayqueue.migration.redisson.*}:
 *
 * <pre class="code">
 * java -cp ... io.github.delayqueue.migration.autoconfigure.RedissonMigrationApplication \
 *     --spring.data.redis.host=redis.internal \
 *     --delayqueue.migration.redisson.queue=orders \
 *     --delayqueue.migration.redisson.topic=order-timeout \
 *     --delayqueue.migration.redisson.codec=JsonJacksonCodec
 * </pre>
 *
 * @since 1.0.0
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class RedissonMigrationApplication {

	/**
	 * Runs the migration and exits the JVM.
	 * @param args {@code --name=value} properties
	 */
	public static void main(String[] args) {
		System.exit(run(args));
	}

	/**
	 * Runs the migration.
	 * @param args {@code --name=value} properties
	 * @return the exit code: 0 when the migration succeeded
	 */
	public static int run(String... args) {
		SpringApplication application = new SpringApplication(RedissonMigrationApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(Map.of("delayqueue.migration.redisson.enabled", "true"));
		try {
			ConfigurableApplicationContext context = application.run(args);
			return SpringApplication.exit(context);
		}
		catch (RuntimeException ex) {
			// Spring Boot has logged the failure
			return 1;
		}
	}

}
