/**
 * Moves the waiting messages of a Redisson {@code RDelayedQueue} into a delayqueue topic: reads Redisson's keys
 * with Spring Data Redis, decodes {@code StringCodec} and {@code JsonJacksonCodec} values without loading any class
 * named in Redis, and schedules each message through {@link io.github.delayqueue.DelayedQueue} with an id derived
 * from its stored bytes, so that running it again duplicates nothing.
 */
@NullMarked
package io.github.delayqueue.migration.redisson;

import org.jspecify.annotations.NullMarked;
