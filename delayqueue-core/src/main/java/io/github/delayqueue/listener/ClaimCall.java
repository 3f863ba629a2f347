package io.github.delayqueue.listener;

import java.util.List;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.Claimant;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one claim of a partition sends and what its reply leaves: it carries the acknowledgements waiting in the
 * {@link Acknowledger} and leases under the partition's {@link Claimant} (so that a claim whose reply never arrived is
 * undone by the next), through the listener's {@link CrashIsolation} (which says whether a suspect may come); the
 * reply's messages go to the {@link LocalBatch}, its round trip sets the next claim's lookahead and tells the
 * {@link Prefetch}, and what it buried or found past its deadline goes to the monitor. The {@link ClaimLoop} decides
 * when a claim runs; one runs at a time.
 */
final class ClaimCall {

	private static final Logger logger = LoggerFactory.getLogger(ClaimCall.class);

	private final String topic;

	private final String partition;

	private final RedisMessageStore store;

	private final ListenerOptions options;

	private final Prefetch prefetch;

	private final CrashIsolation isolation;

	private final LocalBatch batch;

	private final Acknowledger acknowledger;

	private final DelayQueueMonitor monitor;

	/** This partition's consumer in its claims. */
	private final Claimant claimant = Claimant.create();

	/**
	 * The lookahead of the next claim, from the last one's round trip ({@link NextClaim#lookaheadMicros}); always 0
	 * for a listener that does not lease ahead ({@link ListenerOptions#leaseAhead()}).
	 */
	private volatile long lookaheadMicros;

	/** When the last claim was sent, on the {@link System#nanoTime()} clock: its leases are reckoned from it. */
	private long sentNanos;

	ClaimCall(String topic, String partition, RedisMessageStore store, ListenerOptions options, Prefetch prefetch,
			CrashIsolation isolation, LocalBatch batch, Acknowledger acknowledger, DelayQueueMonitor monitor) {
		this.topic = topic;
		this.partition = partition;
		this.store = store;
		this.options = options;
		this.prefetch = prefetch;
		this.isolation = isolation;
		this.batch = batch;
		this.acknowledger = acknowledger;
		this.monitor = monitor;
		this.lookaheadMicros = lookahead(0);
	}

	/** The lookahead the next claim will lease with, in microseconds ({@link NextClaim#lookaheadMicros}). */
	long lookaheadMicros() {
		return this.lookaheadMicros;
	}

	/**
	 * Claims once, carrying the acknowledgements waiting; {@link #hand} then gives what it leased to the batch.
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @return the claim's result
	 * @throws RuntimeException if the call failed (its acknowledgements then go back to the acknowledger)
	 */
	Claim send(int limit) {
		List<Acknowledger.PendingAck> acks = this.acknowledger.takeForClaim();
		long lookahead = this.lookaheadMicros;
		Claim claim;
		long sent = System.nanoTime();
		try {
			claim = this.isolation.claim((mayLeaseSuspect) -> this.store.leases().claim(this.partition,
					this.claimant, Acknowledger.leases(acks), limit, this.options.visibilityTimeout().toMillis(),
					this.options.maxAttempts(), mayLeaseSuspect, lookahead));
		}
		catch (RuntimeException ex) {
			this.acknowledger.claimFailed(acks, ex);
			throw ex;
		}
		finally {
			this.acknowledger.claimDone(acks);
		}
		long roundTrip = System.nanoTime() - sent;
		this.sentNanos = sent;
		this.lookaheadMicros = lookahead(roundTrip);
		this.prefetch.claimed(roundTrip);
		return claim;
	}

	/** Gives the batch what the last claim sent leased. */
	void hand(Claim claim) {
		this.batch.accept(claim, this.sentNanos);
	}

	/**
	 * If the last claim's reply never arrived (Redis may have run it: a dropped connection lost its reply), one claim
	 * that leases nothing hands its messages back, uncharged, so that they need not wait out their lease; for a
	 * partition that stops before it claims again. A failure is logged: the messages then come back when their lease
	 * ends.
	 */
	void undoLost() {
		if (!this.claimant.isReplyMissing()) {
			return;
		}
		try {
			this.store.leases().claim(this.partition, this.claimant, List.of(), 0,
					this.options.visibilityTimeout().toMillis(), this.options.maxAttempts(), false, 0);
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': the claim whose reply was lost could not be undone; its messages come back when "
					+ "their lease ends", this.partition, ex);
		}
	}

	private long lookahead(long roundTripNanos) {
		return this.options.leaseAhead() ? NextClaim.lookaheadMicros(roundTripNanos) : 0;
	}

	/** Tells the monitor what a claim buried (attempts used up) or found past its deadline. */
	void report(Claim claim) {
		if (claim.buried() == 0 && claim.expired() == 0) {
			return;
		}
		try {
			if (claim.buried() > 0) {
				this.monitor.expired(this.topic, claim.buried());
			}
			if (claim.expired() > 0) {
				this.monitor.pastDeadline(this.topic, claim.expired());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

}
