package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Enables {@link DelayedListener} methods: registers the post-processor that finds them and hands them to the
 * application's {@link io.github.delayqueue.listener.DelayedListenerContainer} bean. Spring Boot's
 * auto-configuration applies it; use it directly only without auto-configuration.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DelayedListenerBootstrapConfiguration.class)
public @interface EnableDelayedListeners {

}
