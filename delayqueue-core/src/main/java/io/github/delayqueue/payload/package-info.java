/**
 * How payloads become bytes in Redis and back: {@link io.github.delayqueue.payload.PayloadConverter} and its
 * JSON implementation. The target type of a read always comes from the application, never from Redis.
 */
@NullMarked
package io.github.delayqueue.payload;

import org.jspecify.annotations.NullMarked;
