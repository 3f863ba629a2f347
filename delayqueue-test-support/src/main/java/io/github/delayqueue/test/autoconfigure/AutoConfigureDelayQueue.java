package io.github.delayqueue.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * {@link ImportAutoConfiguration Auto-configuration imports} for what a delayed queue needs: the Redis connection,
 * Jackson, validation where present, and delayqueue's auto-configuration (the queue, the wake-up timer, the listener
 * containers and {@code @DelayedListener} support). Most tests use {@link DelayQueueTest @DelayQueueTest} instead.
 *
 * @since 1.0.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureDelayQueue {

}
