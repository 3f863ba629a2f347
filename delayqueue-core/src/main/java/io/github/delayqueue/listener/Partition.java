package io.github.delayqueue.listener;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.TopicTrigger;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

/**
 * One partition of a listener's topic (a topic of one partition has just this one): its {@link ClaimLoop}, woken by
 * the partition's wake channel, leases due messages into the listener's {@link ReadyQueue}, carrying the
 * acknowledgements its {@link Acknowledger} keeps; its {@link LeaseKeeper} holds and extends the leases it took. It
 * runs no handler: the listener's handler threads do, and end each lease through it.
 */
final class Partition {

	private final int index;

	private final String name;

	private final LeaseKeeper leases;

	private final Acknowledger acknowledger;

	private final ClaimLoop claims;

	private volatile @Nullable TopicTrigger trigger;

	/**
	 * Creates one partition's part of a listener's run.
	 * @param context what the listener's parts share
	 * @param index the partition's index
	 */
	Partition(ListenerContext context, int index) {
		this.index = index;
		this.name = context.partitionName(index);
		ListenerOptions options = context.options();
		this.leases = new LeaseKeeper(this.name, context.store(), options.visibilityTimeout(), context.isolation());
		this.acknowledger = new Acknowledger(this.name, context.store(), options.visibilityTimeout(), this.leases);
		this.claims = new ClaimLoop(context, index, this.leases, this.acknowledger);
	}

	int index() {
		return this.index;
	}

	/** The store's name of the partition (the topic itself for partition 0). */
	String name() {
		return this.name;
	}

	LeaseKeeper leases() {
		return this.leases;
	}

	Acknowledger acknowledger() {
		return this.acknowledger;
	}

	boolean isClaimFailing() {
		return this.claims.isFailing();
	}

	/**
	 * Starts claiming when woken; if a step fails, what was started is undone and the exception thrown.
	 * @param wakeUps wakes the partition when its messages fall due
	 * @param wakeChannel the partition's wake channel
	 * @param io runs claims, acknowledgement flushes and lease extensions (short Redis calls)
	 * @param maintenance times lease extensions, acknowledgement lingers and retries
	 */
	void start(WakeUpTimer wakeUps, String wakeChannel, Executor io, ScheduledExecutorService maintenance) {
		this.acknowledger.start(io, maintenance);
		TopicTrigger registered = null;
		try {
			// a topic's subscriptions share its channel, each with a trigger of its own
			String subscription = TopicKeys.subscriptionOf(this.name);
			registered = wakeUps.register(wakeChannel, subscription, this.claims::request);
			this.leases.startExtending(maintenance, io);
		}
		catch (RuntimeException ex) {
			if (registered != null) {
				registered.close();
			}
			this.leases.stopExtending();
			throw ex;
		}
		this.trigger = registered;
		this.claims.start(io, registered);
		this.claims.request();
	}

	/** Stops claiming (a claim running now hands what it leases back) and stops the wake-ups. */
	void stopClaiming() {
		this.claims.stop();
		TopicTrigger current = this.trigger;
		if (current != null) {
			current.close();
			this.trigger = null;
		}
	}

	/**
	 * Asks for a claim: messages may be due in Redis, leases may have ended, or a suspect may now be leased.
	 */
	void requestClaim() {
		this.claims.request();
	}

	/** After a handler thread took one of its messages: claims more if messages are due and half the share is free. */
	void refill() {
		this.claims.refill();
	}

	/** Hands leases back to the queue at once, uncharged, unless their outcome took them meanwhile. */
	void handBack(List<Lease> leases) {
		this.leases.handBack(leases);
	}

	/** Hands a lease back to the queue at once, uncharged, unless its outcome took it meanwhile. */
	void handBack(Lease lease) {
		this.leases.handBack(lease);
	}

	/** Stops extending leases and hands back those still held, uncharged (a start that failed part way). */
	void handBackAll() {
		this.leases.stopExtending();
		this.leases.handBackAll();
	}

	/**
	 * Stops extending leases and hands back those still held at the end of a stop: a message whose handler is still
	 * running comes back with that attempt counted, as a suspect.
	 * @param reason the error recorded for such a message
	 */
	void handBackRunning(String reason) {
		this.leases.stopExtending();
		this.leases.handBackAll(reason);
	}

	/** Undoes a claim whose reply never arrived, and sends the acknowledgements still waiting, on this thread. */
	void flush() {
		this.claims.undoLostClaim();
		this.acknowledger.flush();
	}

}
