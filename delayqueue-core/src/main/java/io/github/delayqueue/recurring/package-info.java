/**
 * Recurring schedules: a message for a topic on every tick of a cron expression or a fixed interval, fired once per
 * tick however many instances run, defined in Redis so that every instance sees the same.
 */
@NullMarked
package io.github.delayqueue.recurring;

import org.jspecify.annotations.NullMarked;
