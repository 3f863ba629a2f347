/**
 * The wake-up timer's package until 0.2, deprecated: {@code DelayedMessageScheduler} and {@code TopicTrigger} remain
 * here for a release; the timer is {@link io.github.delayqueue.wakeup.WakeUpTimer}.
 */
@NullMarked
package io.github.delayqueue.scheduling;

import org.jspecify.annotations.NullMarked;
