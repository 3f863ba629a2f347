package io.github.delayqueue.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * {@link ImportAutoConfiguration Auto-configuration imports} for a Redis with no set-up
 * ({@code TestRedisAutoConfiguration} of each Boot line's test kit): the application's Redis connection goes to a
 * database of its own on a test server (a container where a Docker engine answers, a {@code redis-server} process otherwise), whatever
 * {@code spring.data.redis.*} says, unless the test brings its own connection details (a
 * {@code @ServiceConnection} container, say). {@link DelayQueueTest @DelayQueueTest} includes it; a
 * {@code @SpringBootTest} may use it on its own.
 *
 * @since 1.0.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureTestRedis {

}
