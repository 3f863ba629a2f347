package io.github.delayqueue.redis;

/**
 * What counting the start of a leased message did.
 *
 * @param lease the lease
 * @param outcome what happened
 * @param attempt the attempt number, if started
 */
public record StartResult(Lease lease, Outcome outcome, int attempt) {

	/** What happened to a message whose start was asked. */
	public enum Outcome {

		/** Its attempt is counted: run the handler. */
		STARTED,

		/** Its attempts were used up (earlier handlers never finished): it went to the dead letters. */
		BURIED,

		/** The lease is not current any more (it expired and the message was claimed again): do not run it. */
		LOST

	}

}
