/**
 * The public API of delayqueue: {@link io.github.delayqueue.DelayedQueue} schedules, cancels and reschedules
 * messages; the types beside it describe messages, topics and their state.
 */
@NullMarked
package io.github.delayqueue;

import org.jspecify.annotations.NullMarked;
