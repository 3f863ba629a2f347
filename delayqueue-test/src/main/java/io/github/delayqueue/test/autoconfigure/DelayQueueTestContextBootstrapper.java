package io.github.delayqueue.test.autoconfigure;

import org.springframework.boot.test.autoconfigure.TestSliceTestContextBootstrapper;
import org.springframework.test.context.TestContextBootstrapper;

/**
 * {@link TestContextBootstrapper} for {@link DelayQueueTest @DelayQueueTest}: reads its {@code properties}.
 */
class DelayQueueTestContextBootstrapper extends TestSliceTestContextBootstrapper<DelayQueueTest> {

}
