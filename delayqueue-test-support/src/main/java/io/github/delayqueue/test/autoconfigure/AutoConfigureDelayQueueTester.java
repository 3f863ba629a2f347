package io.github.delayqueue.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * {@link ImportAutoConfiguration Auto-configuration imports} for a
 * {@link io.github.delayqueue.test.DelayQueueTester DelayQueueTester} bean and the recording of what the
 * application's listeners receive ({@link DelayQueueTesterAutoConfiguration}). {@link DelayQueueTest @DelayQueueTest}
 * includes it; a {@code @SpringBootTest} may use it on its own, with whatever Redis the application uses.
 *
 * @since 1.0.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureDelayQueueTester {

}
