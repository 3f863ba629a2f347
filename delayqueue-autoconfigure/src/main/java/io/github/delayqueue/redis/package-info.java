/**
 * The Redis side of delayqueue: the per-topic data model, the Lua scripts that change it atomically on the Redis
 * server's clock, and the {@link io.github.delayqueue.DelayedQueue} built on them.
 */
@NullMarked
package io.github.delayqueue.redis;

import org.jspecify.annotations.NullMarked;
