package io.github.delayqueue.migration.redisson;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One element read from a Redisson delayed queue, ready to schedule.
 *
 * @param id the delayqueue message id derived from the stored element
 * @param stored the element exactly as Redis holds it (what removing it names)
 * @param dueAt its due time, or {@code null} for an element already in the destination queue (due at once)
 * @param payload the payload to schedule
 * @param key the Redis key it was read from
 * @param position its rank or index in that key when it was read
 */
record WaitingMessage(String id, byte[] stored, @Nullable Instant dueAt, Object payload, String key, long position) {

}
