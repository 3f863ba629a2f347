package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.Claimant;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one claim of a partition sends and what its reply leaves: it carries the acknowledgements waiting in the
 * partition's {@link Acknowledger} and leases under the partition's {@link Claimant} (so that a claim whose reply never
 * arrived is undone by the next), through the listener's {@link CrashIsolation} (which says whether a suspect may
 * come); the leases it took are held by the partition's {@link LeaseKeeper} and its messages go to the listener's
 * {@link ReadyQueue}; its round trip sets the next claim's lookahead and tells the {@link Prefetch}; what it buried or
 * found past its deadline goes to the monitor. The {@link ClaimLoop} decides when a claim runs; one runs at a time.
 */
final class ClaimCall {

	private static final Logger logger = LoggerFactory.getLogger(ClaimCall.class);

	private final ListenerContext context;

	private final int index;

	/** The store's name of the partition. */
	private final String partition;

	private final LeaseKeeper leases;

	private final Acknowledger acknowledger;

	/** This partition's consumer in its claims. */
	private final Claimant claimant = Claimant.create();

	/**
	 * The lookahead of the next claim, from the last one's round trip ({@link NextClaim#lookaheadMicros}); always 0
	 * for a listener that does not lease ahead ({@link ListenerOptions#leaseAhead()}).
	 */
	private volatile long lookaheadMicros;

	/** When the last claim was sent, on the {@link System#nanoTime()} clock: its leases are reckoned from it. */
	private long sentNanos;

	/**
	 * Creates the claims of one partition.
	 * @param context what the listener's parts share
	 * @param index the partition's index
	 * @param leases the partition's leases
	 * @param acknowledger the partition's acknowledgements
	 */
	ClaimCall(ListenerContext context, int index, LeaseKeeper leases, Acknowledger acknowledger) {
		this.context = context;
		this.index = index;
		this.partition = context.partitionName(index);
		this.leases = leases;
		this.acknowledger = acknowledger;
		this.lookaheadMicros = lookahead(0);
	}

	/** The lookahead the next claim will lease with, in microseconds ({@link NextClaim#lookaheadMicros}). */
	long lookaheadMicros() {
		return this.lookaheadMicros;
	}

	/**
	 * Claims once, carrying the acknowledgements waiting; {@link #hand} then passes on what it leased.
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @return the claim's result
	 * @throws RuntimeException if the call failed (its acknowledgements then go back to the acknowledger)
	 */
	Claim send(int limit) {
		List<Acknowledger.PendingAck> acks = this.acknowledger.takeForClaim();
		long lookahead = this.lookaheadMicros;
		ListenerOptions options = this.context.options();
		Claim claim;
		long sent = System.nanoTime();
		try {
			claim = this.context.isolation().claim((mayLeaseSuspect) -> this.context.store().leases().claim(
					this.partition, this.claimant, Acknowledger.leases(acks), limit,
					options.visibilityTimeout().toMillis(), options.maxAttempts(), mayLeaseSuspect, lookahead));
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
		this.context.prefetch().claimed(roundTrip);
		return claim;
	}

	/**
	 * Holds the leases the last claim took and queues its messages for the handler threads; if the listener stops
	 * meanwhile (its queue closed), hands them back at once, unstarted.
	 */
	void hand(Claim claim) {
		if (claim.messages().isEmpty()) {
			return;
		}
		long claimedNanos = System.nanoTime();
		List<Delivery> deliveries = new ArrayList<>(claim.messages().size());
		for (ClaimedMessage message : claim.messages()) {
			this.leases.hold(message.lease(), this.sentNanos, message.suspect());
			deliveries.add(new Delivery(message, this.index, claim.serverTime(), claimedNanos));
		}
		if (!this.context.ready().offer(deliveries)) {
			this.leases.handBack(deliveries.stream().map((delivery) -> delivery.message().lease()).toList());
		}
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
		ListenerOptions options = this.context.options();
		try {
			this.context.store().leases().claim(this.partition, this.claimant, List.of(), 0,
					options.visibilityTimeout().toMillis(), options.maxAttempts(), false, 0);
		}
		catch (RuntimeException ex) {
			logger.debug("Partition '{}': the claim whose reply was lost could not be undone; its messages come back when "
					+ "their lease ends", this.partition, ex);
		}
	}

	private long lookahead(long roundTripNanos) {
		return this.context.options().leaseAhead() ? NextClaim.lookaheadMicros(roundTripNanos) : 0;
	}

	/** Tells the monitor what a claim buried (attempts used up) or found past its deadline. */
	void report(Claim claim) {
		if (claim.buried() == 0 && claim.expired() == 0) {
			return;
		}
		String topic = this.context.topic();
		try {
			if (claim.buried() > 0) {
				this.context.monitor().expired(topic, claim.buried());
			}
			if (claim.expired() > 0) {
				this.context.monitor().pastDeadline(topic, claim.expired());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", topic, ex);
		}
	}

}
