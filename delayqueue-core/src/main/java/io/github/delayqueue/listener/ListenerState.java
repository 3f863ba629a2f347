package io.github.delayqueue.listener;

/**
 * A snapshot of one listener's {@link DelayedListenerContainer}.
 *
 * @param id the listener's id
 * @param topic the topic
 * @param running whether it is consuming
 * @param concurrency the most handlers it runs at once
 * @param inFlight the handlers running now
 * @param batchSize the most messages it leases ahead of its handlers (running ones included)
 * @param prefetched the messages it holds leased and waiting for a handler now
 * @param claimFailing whether its last claim failed (Redis unreachable, say); it retries on every poll
 * @since 0.1.0
 */
public record ListenerState(String id, String topic, boolean running, int concurrency, int inFlight, int batchSize,
		int prefetched, boolean claimFailing) {
}
