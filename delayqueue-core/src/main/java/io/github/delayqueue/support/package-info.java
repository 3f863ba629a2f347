/**
 * Support for watching delayqueue at work: the {@link io.github.delayqueue.support.DelayQueueMonitor} callbacks and
 * their Micrometer implementation.
 */
@NullMarked
package io.github.delayqueue.support;

import org.jspecify.annotations.NullMarked;
