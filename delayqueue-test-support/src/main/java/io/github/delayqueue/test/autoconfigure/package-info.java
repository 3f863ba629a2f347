/**
 * Test auto-configuration: the {@link io.github.delayqueue.test.autoconfigure.DelayQueueTest @DelayQueueTest} slice
 * and the annotations it is made of, which a {@code @SpringBootTest} may use on their own. Not meant to be
 * component-scanned.
 */
@NullMarked
package io.github.delayqueue.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
