package io.github.delayqueue.benchmarks;

import java.util.List;

/**
 * One delayed-queue implementation as the benchmark drives it: the same calls, the same payloads, the same Redis
 * server. A message is an id and a payload text; the payload carries the intended due time, so handlers can
 * measure lateness the same way for every implementation.
 */
interface QueueUnderTest extends AutoCloseable {

	/**
	 * A short name for tables.
	 * @return the name
	 */
	String name();

	/**
	 * Schedules one message with the single-message API and returns when the implementation says it is stored.
	 * @param message the message
	 * @param delayMillis its delay
	 */
	void schedule(Message message, long delayMillis);

	/**
	 * Stores many messages as fast as the implementation allows (our batched API; Redisson's asynchronous offer
	 * with a window of requests in flight) and returns when all are stored.
	 * @param messages the messages, each due at its {@link Message#dueAtMillis()}
	 */
	void scheduleMany(List<Message> messages);

	/**
	 * Schedules messages one call each through the implementation's asynchronous single-message API (ours:
	 * {@code DelayedQueue.async().schedule}; Redisson: {@code offerAsync}), from the calling thread alone, with at
	 * most {@code inFlight} calls not yet completed, and returns when all are stored.
	 * @param messages the messages, each due at its {@link Message#dueAtMillis()}
	 * @param inFlight the most calls in flight at once
	 */
	void scheduleAsync(List<Message> messages, int inFlight);

	/**
	 * Whether {@link #scheduleMany(List)} is a batched API of the implementation (rather than pipelined single
	 * calls).
	 * @return {@code true} for a batched API
	 */
	boolean hasBatchedApi();

	/**
	 * Cancels a waiting message.
	 * @param message the message
	 * @return whether it was waiting and is gone
	 */
	boolean cancel(Message message);

	/**
	 * Starts consuming with the given number of handler threads.
	 * @param threads handler threads
	 * @param handler what each delivered message is given to
	 * @return the running consumer, to close
	 */
	Consumer consume(int threads, Handler handler);

	@Override
	void close();

	/**
	 * A message: its id and the payload text, which ends with the intended due time in microseconds.
	 *
	 * @param id the id
	 * @param payload the payload text
	 * @param dueAtMillis the due time, epoch milliseconds on this host's clock
	 */
	record Message(String id, String payload, long dueAtMillis) {

		/** Creates a message due at an epoch time in microseconds. */
		static Message dueAtMicros(String id, long dueAtMicros) {
			return new Message(id, id + "|" + dueAtMicros, Math.floorDiv(dueAtMicros + 999, 1000));
		}

		/** The intended due time carried in a payload text, in epoch microseconds. */
		static long dueMicrosOf(String payload) {
			return Long.parseLong(payload, payload.lastIndexOf('|') + 1, payload.length(), 10);
		}

		/** The id carried in a payload text. */
		static String idOf(String payload) {
			return payload.substring(0, payload.lastIndexOf('|'));
		}

	}

	/** Receives delivered messages on a handler thread. */
	@FunctionalInterface
	interface Handler {

		/**
		 * Handles one message; returning normally acknowledges it where the implementation has acks.
		 * @param payload the payload text
		 * @param storedDueMicros the due time the queue stored for it, epoch microseconds on its server's clock, or
		 * {@link #NO_STORED_DUE} where the queue does not tell it to its handlers
		 */
		void handle(String payload, long storedDueMicros);

		/** What a queue that does not tell its handlers the stored due time passes. */
		long NO_STORED_DUE = Long.MIN_VALUE;

	}

	/** A running consumer. */
	interface Consumer extends AutoCloseable {

		@Override
		void close();

	}

}
