package io.github.delayqueue.listener;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.RedisMessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One topic's claims: when asked (by the trigger, or because due messages were left behind while handlers were
 * free), claims due messages for the free handler slots on the I/O executor, one claim at a time, again while more
 * are due and slots are free. A claim also does the topic's upkeep (expired leases, dead letter trimming), so it
 * runs when asked even with no free slot.
 */
final class ClaimLoop {

	private static final Logger logger = LoggerFactory.getLogger(ClaimLoop.class);

	private final String topic;

	private final RedisMessageStore store;

	private final ListenerOptions options;

	private final HandlerThreads handlers;

	private final SuspectGate suspects;

	private final BooleanSupplier active;

	private final BooleanSupplier ownHandlersRunning;

	private final ClaimAcceptor accept;

	private final Consumer<Delivery> dispatch;

	private final AtomicBoolean running = new AtomicBoolean();

	private volatile boolean wanted;

	/** Counts {@link #want()} calls, so that a claim does not clear a want made while it ran. */
	private final AtomicLong wants = new AtomicLong();

	private volatile boolean failing;

	private volatile Executor io = Runnable::run;

	/**
	 * Creates the claim loop of a topic.
	 * @param suspects lets one suspect at a time be leased for the whole listener
	 * @param active whether the topic's consumer runs
	 * @param ownHandlersRunning whether handlers run messages of this claim loop's partition (as they finish, they
	 * lease its next due messages themselves)
	 * @param accept takes what a claim leased and returns the deliveries to run
	 * @param dispatch runs a delivery in a slot reserved for it
	 */
	ClaimLoop(String topic, RedisMessageStore store, ListenerOptions options, HandlerThreads handlers,
			SuspectGate suspects, BooleanSupplier active, BooleanSupplier ownHandlersRunning, ClaimAcceptor accept,
			Consumer<Delivery> dispatch) {
		this.topic = topic;
		this.store = store;
		this.options = options;
		this.handlers = handlers;
		this.suspects = suspects;
		this.active = active;
		this.ownHandlersRunning = ownHandlersRunning;
		this.accept = accept;
		this.dispatch = dispatch;
	}

	void start(Executor io) {
		this.io = io;
	}

	/** Notes that a claim is wanted, without starting one now (one starts when a handler slot frees up). */
	void want() {
		this.wants.incrementAndGet();
		this.wanted = true;
	}

	boolean isWanted() {
		return this.wanted;
	}

	boolean isFailing() {
		return this.failing;
	}

	/**
	 * Asks for a claim now: messages may be due in Redis, or leases may have ended.
	 * @return whether a claim started (else one is running, which claims again as it is wanted, or the loop is
	 * inactive)
	 */
	boolean request() {
		this.wanted = true;
		if (!this.active.getAsBoolean()) {
			return false;
		}
		if (this.running.compareAndSet(false, true)) {
			try {
				this.io.execute(this::run);
				return true;
			}
			catch (RejectedExecutionException ex) {
				this.running.set(false);
				logger.debug("Topic '{}': claim not started", this.topic, ex);
			}
		}
		return false;
	}

	private void run() {
		boolean starved = false;
		try {
			while (this.active.getAsBoolean() && this.wanted && !starved) {
				this.wanted = false;
				starved = !claim();
			}
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.warn("Topic '{}': claiming failed; trying again on the next poll", this.topic, ex);
			}
			else {
				logger.debug("Topic '{}': claiming failed again", this.topic, ex);
			}
		}
		finally {
			this.running.set(false);
		}
		// a starved loop waits for a free slot, unless one freed while it was ending (its request found it running)
		if (this.wanted && this.active.getAsBoolean() && !this.failing
				&& (!starved || this.handlers.hasFreeSlot())) {
			request();
		}
	}

	/**
	 * Claims due messages for the free handler slots and runs them.
	 * @return {@code false} if due messages are left and no handler of this partition will lease them: the claim
	 * stays wanted until a slot frees up
	 */
	private boolean claim() {
		long wantsBefore = this.wants.get();
		int limit = this.handlers.reserve(this.options.batchSize());
		Claim claim;
		long sent = System.nanoTime();
		try {
			claim = this.suspects.claim((mayLeaseSuspect) -> this.store.claim(this.topic, limit,
					this.options.visibilityTimeout().toMillis(), this.options.maxAttempts(), mayLeaseSuspect));
		}
		catch (RuntimeException ex) {
			this.wanted = true;
			this.handlers.release(limit);
			throw ex;
		}
		if (this.failing) {
			this.failing = false;
			logger.info("Topic '{}': claiming works again", this.topic);
		}
		List<Delivery> deliveries = this.accept.accept(claim, sent);
		this.handlers.release(limit - deliveries.size());
		deliveries.forEach(this.dispatch);
		if (this.wanted && !this.handlers.hasFreeSlot()) {
			if (this.ownHandlersRunning.getAsBoolean() && this.wants.get() == wantsBefore) {
				// more are due, but every handler is busy: as this partition's finish, each leases its next due
				// message itself (unless one yielded meanwhile, asking for a claim: that want stands)
				this.wanted = false;
			}
			else {
				// every handler runs another partition's messages: this one waits, wanted, for the next free slot
				return false;
			}
		}
		return true;
	}

}
