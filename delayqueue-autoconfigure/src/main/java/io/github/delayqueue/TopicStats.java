package io.github.delayqueue;

/**
 * A topic's messages counted by state, read at one instant of the Redis clock.
 *
 * @param topic the topic
 * @param waiting messages due later (scheduled, or waiting for a retry)
 * @param ready messages due now but not yet claimed by a consumer
 * @param inflight messages claimed by a consumer whose handler has not finished
 * @param dead messages that failed every attempt, or could not be read
 */
public record TopicStats(String topic, long waiting, long ready, long inflight, long dead) {

	/**
	 * Messages that are waiting or ready: not yet delivered.
	 * @return {@code waiting + ready}
	 */
	public long pending() {
		return this.waiting + this.ready;
	}

}
