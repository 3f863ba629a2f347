package io.github.delayqueue.test.app;

import org.springframework.stereotype.Component;

/**
 * A component of the application that a {@code @DelayQueueTest} must not bring up.
 */
@Component
public class NotAListener {

}
