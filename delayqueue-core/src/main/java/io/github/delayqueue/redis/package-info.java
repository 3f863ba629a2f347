/**
 * The storage layer: the per-topic data model in Redis, its stored format, and the Lua scripts that change it
 * atomically on the Redis server's clock. It holds bytes and hands back decoded records; it knows nothing of the
 * layers above it.
 */
@NullMarked
package io.github.delayqueue.redis;

import org.jspecify.annotations.NullMarked;
