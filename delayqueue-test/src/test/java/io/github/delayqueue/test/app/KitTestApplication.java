package io.github.delayqueue.test.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application the kit's tests run in: a {@code @DelayQueueTest} finds it, and scans nothing of it but what the
 * slice includes.
 */
@SpringBootApplication
public class KitTestApplication {

}
