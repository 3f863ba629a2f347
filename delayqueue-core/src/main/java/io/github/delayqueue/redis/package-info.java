/**
 * The storage layer: the per-topic data model in Redis, its stored format, and the Lua scripts that change it
 * atomically on the Redis server's clock. It holds bytes and hands back decoded records; it knows nothing of the
 * layers above it.
 * <p>
 * An application names {@link io.github.delayqueue.redis.RedisMessageStore} (made once per Redis, when it does not
 * use Spring Boot), its {@link io.github.delayqueue.redis.DeadLetterPolicy}, and the
 * {@link io.github.delayqueue.redis.NotReplicatedException} a change may fail with. {@link
 * io.github.delayqueue.redis.RecurringStore} is what {@code RedisRecurringSchedules} is made with, and
 * {@link io.github.delayqueue.redis.NewMessage} (with its {@link io.github.delayqueue.redis.DueTime} and
 * {@link io.github.delayqueue.redis.Expiry}) what {@code RedisDelayedQueue.storeTick} takes. The rest of the layer
 * is in {@code io.github.delayqueue.redis.internal}, which is not an API.
 */
@NullMarked
package io.github.delayqueue.redis;

import org.jspecify.annotations.NullMarked;
