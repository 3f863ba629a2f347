/**
 * The {@link io.github.delayqueue.DelayedQueue} on the Redis store: validation, serialisation, ids, observation and
 * metrics around the store's atomic operations.
 */
@NullMarked
package io.github.delayqueue.core;

import org.jspecify.annotations.NullMarked;
