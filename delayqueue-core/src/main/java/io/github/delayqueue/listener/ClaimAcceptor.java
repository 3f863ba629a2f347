package io.github.delayqueue.listener;

import java.util.List;

import io.github.delayqueue.redis.Claim;

/**
 * Takes what a claim (or the claim part of an acknowledgement) leased: holds the leases and returns the deliveries
 * to run.
 */
@FunctionalInterface
interface ClaimAcceptor {

	/**
	 * Takes a claim's result.
	 * @param claim what the call leased
	 * @param sentNanos {@link System#nanoTime()} just before the call was sent: Redis ran it later, so its leases
	 * last at least the visibility timeout from then, whatever the reply's delay
	 * @return the deliveries to run
	 */
	List<Delivery> accept(Claim claim, long sentNanos);

}
