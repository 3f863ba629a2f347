package io.github.delayqueue.faults;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The producing side of a queue under test, as the suite's producer uses it.
 */
interface QueueClient extends AutoCloseable {

	/**
	 * Schedules a message.
	 * @param id the queue id
	 * @param work the payload (its due time is the message's due time)
	 * @return {@code true} if the queue acknowledged a new message, {@code false} if the id was still waiting
	 * @throws RuntimeException if the call failed (not acknowledged)
	 */
	boolean send(String id, Work work);

	/**
	 * Schedules a payload that the consumers cannot read.
	 * @param id the queue id
	 * @param due when it is due, epoch milliseconds
	 * @throws UnsupportedOperationException if the queue has no such notion
	 */
	void sendUnreadable(String id, long due);

	/**
	 * Messages the queue still holds for delivery (waiting, due, or handed out and not acknowledged).
	 * @return the count
	 */
	long remaining();

	/**
	 * The ids of the dead letters.
	 * @return the ids; empty where the queue has none
	 */
	Set<String> deadLetterIds();

	/**
	 * Which of some messages the queue still holds (waiting, retrying, leased, or a dead letter), by look-up.
	 * @param keys message keys ({@link Work#key()})
	 * @return for each key the queue still holds (the same generation), where it is; {@code null} if the queue has
	 * no look-up by id (Redisson)
	 */
	@Nullable Map<String, Held> held(Collection<String> keys);

	@Override
	void close();

	/**
	 * Where the queue holds a message, as its look-up said.
	 *
	 * @param state {@code WAITING}, {@code RETRYING}, {@code IN_FLIGHT} or {@code DEAD}
	 * @param attempts the attempts the queue counted so far
	 */
	record Held(String state, int attempts) {

		static final String DEAD = "DEAD";

	}

}
