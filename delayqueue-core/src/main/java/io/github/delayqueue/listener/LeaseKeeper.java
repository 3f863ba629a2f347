package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Lease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases one partition's consumer holds: it extends them every third of the visibility timeout while they are
 * held, and lets each end once. Whoever takes a lease out ({@link #take}) decides how it ends: the handler's outcome
 * (ack, retry, dead letter) or the hand-back on stop, never both.
 * <p>
 * It also knows, on this JVM's monotonic clock, until when each lease is surely still this consumer's: a visibility
 * timeout after the call that leased or last extended it was sent (Redis ran the call later, so the lease lasts at
 * least that long). A consumer that stood still past that (a long GC pause, a stopped process) does not start a
 * handler on the lease: another consumer may have the message already.
 */
final class LeaseKeeper {

	private static final Logger logger = LoggerFactory.getLogger(LeaseKeeper.class);

	/** The store's name of the partition (the topic itself for partition 0). */
	private final String partition;

	private final RedisMessageStore store;

	private final Duration visibilityTimeout;

	/** Each lease held, with until when it is surely still held in Redis and whether its handler started. */
	private final Map<Lease, Held> held = new ConcurrentHashMap<>();

	private @Nullable ScheduledFuture<?> extension;

	private final CrashIsolation isolation;

	/** The lease of the suspect this keeper holds, if any: its end opens the listener's {@link CrashIsolation}. */
	private final AtomicReference<@Nullable Lease> suspect = new AtomicReference<>();

	LeaseKeeper(String partition, RedisMessageStore store, Duration visibilityTimeout, CrashIsolation isolation) {
		this.partition = partition;
		this.store = store;
		this.visibilityTimeout = visibilityTimeout;
		this.isolation = isolation;
	}

	/**
	 * Holds a new lease: extended until taken.
	 * @param lease the lease
	 * @param sentNanos {@link System#nanoTime()} just before the call that leased it was sent
	 * @param suspect whether it is the suspect the claim leased through the listener's {@link CrashIsolation}: the
	 * gate opens when the call that ends it has returned ({@link #ended})
	 */
	void hold(Lease lease, long sentNanos, boolean suspect) {
		if (suspect) {
			this.suspect.set(lease);
		}
		this.held.put(lease, new Held(sentNanos + this.visibilityTimeout.toNanos(), false));
	}

	/**
	 * Takes a lease out of the held ones.
	 * @return {@code true} if the caller decides how it ends, {@code false} if someone else took it already
	 */
	boolean take(Lease lease) {
		return this.held.remove(lease) != null;
	}

	/**
	 * Says that the handler of a held lease starts now: if the lease is still held when the consumer stops (the
	 * handler ran past the shutdown timeout), its attempt counts ({@link #handBackAll(String)}). Decided with the
	 * lease's hand-back, never beside it: either the handler starts and a hand-back counts its attempt, or the lease
	 * went back first and the handler must not start.
	 * @param lease the lease
	 * @return {@code false} if the lease is no longer held
	 */
	boolean started(Lease lease) {
		return this.held.computeIfPresent(lease, (key, held) -> held.start()) != null;
	}

	/**
	 * Says that the handling of a lease is over and the call ending it has returned (acknowledgement, retry, dead
	 * letter or hand-back; an acknowledgement the handover could not send is queued): if it was the suspect's, the
	 * listener's {@link CrashIsolation} opens. Not before: the next suspect may kill the JVM at once, and this one's
	 * outcome should have reached Redis by then.
	 * @param lease the lease
	 */
	void ended(Lease lease) {
		if (this.suspect.compareAndSet(lease, null)) {
			this.isolation.suspectEnded();
		}
	}

	/**
	 * Whether a lease may have run out in Redis: it is no longer held here, or more than the visibility timeout has
	 * passed since the call that leased or last extended it was sent.
	 * @param lease the lease
	 * @return {@code true} if another consumer may have its message now
	 */
	boolean mayHaveRunOut(Lease lease) {
		Held current = this.held.get(lease);
		return current == null || System.nanoTime() - current.until() >= 0;
	}

	int size() {
		return this.held.size();
	}

	/**
	 * Extends the held leases every third of the visibility timeout, on the I/O executor.
	 * @param maintenance schedules the extensions
	 * @param io runs them
	 */
	synchronized void startExtending(ScheduledExecutorService maintenance, Executor io) {
		stopExtending();
		long period = Math.max(50, this.visibilityTimeout.toMillis() / 3);
		this.extension = maintenance.scheduleWithFixedDelay(() -> io.execute(this::extendAll), period, period,
				TimeUnit.MILLISECONDS);
	}

	synchronized void stopExtending() {
		if (this.extension != null) {
			this.extension.cancel(false);
			this.extension = null;
		}
	}

	/** Extends every lease held now; a failure is logged (the next period tries again). */
	void extendAll() {
		if (this.held.isEmpty()) {
			return;
		}
		List<Lease> current = new ArrayList<>(this.held.keySet());
		long sent = System.nanoTime();
		try {
			Set<String> extended = this.store.leases().extend(this.partition, current, this.visibilityTimeout.toMillis());
			// each one still this consumer's lasts a visibility timeout from the call; one that was not is counted
			// on for no longer than before
			long until = sent + this.visibilityTimeout.toNanos();
			for (Lease lease : current) {
				if (extended.contains(lease.id())) {
					this.held.computeIfPresent(lease, (key, held) -> held.extendTo(until));
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Partition '{}': could not extend the leases of {} message(s)", this.partition, current.size(), ex);
		}
	}

	/**
	 * Hands leases back to the queue at once (pending at their due time again, the attempt not counted), each
	 * unless someone took it meanwhile.
	 */
	void handBack(Collection<Lease> leases) {
		List<Lease> unfinished = new ArrayList<>(leases.size());
		for (Lease lease : leases) {
			if (take(lease)) {
				unfinished.add(lease);
			}
		}
		release(unfinished);
	}

	/**
	 * Hands a lease back to the queue at once, uncharged, unless its outcome took it meanwhile (the usual case: the
	 * call costs nothing then).
	 * @param lease the lease
	 */
	void handBack(Lease lease) {
		if (take(lease)) {
			release(List.of(lease));
		}
	}

	/** Hands leases taken out back to the queue at once, uncharged. */
	private void release(List<Lease> unfinished) {
		if (unfinished.isEmpty()) {
			return;
		}
		try {
			this.store.leases().release(this.partition, unfinished);
		}
		catch (RuntimeException ex) {
			logger.warn("Partition '{}': could not hand back {} unfinished message(s); they are redelivered when "
					+ "their lease ends", this.partition, unfinished.size(), ex);
		}
		finally {
			unfinished.forEach(this::ended);
		}
	}

	/** Hands back every lease still held, uncharged. */
	void handBackAll() {
		handBack(new ArrayList<>(this.held.keySet()));
	}

	/**
	 * Hands back every lease still held, when the consumer stops. A message whose handler started and is still
	 * running (past the shutdown timeout) comes back as a failed attempt, counted, and as a suspect (its handler may
	 * yet kill the JVM): a message whose handler never returns then reaches the dead letters after its attempts,
	 * however often the application restarts. The others come back unstarted and uncharged.
	 * @param reason the error recorded for a message whose handler was still running
	 */
	void handBackAll(String reason) {
		List<Lease> unstarted = new ArrayList<>();
		for (Lease lease : new ArrayList<>(this.held.keySet())) {
			Held taken = this.held.remove(lease);
			if (taken == null) {
				// its handler's outcome took it meanwhile
				continue;
			}
			if (!taken.started()) {
				unstarted.add(lease);
			}
			else {
				// its handler still runs and may never return: it holds no suspect back any more
				this.isolation.batchedEnded(lease);
				try {
					this.store.leases().retry(this.partition, lease, 0, reason, true);
				}
				catch (RuntimeException ex) {
					logger.warn("Partition '{}': could not count the attempt of message '{}', still running; it is "
							+ "redelivered when its lease ends", this.partition, lease.id(), ex);
				}
				finally {
					ended(lease);
				}
			}
		}
		release(unstarted);
		// a suspect whose outcome was decided without its handler (it timed out) and whose thread never returned:
		// nothing of it is held here any more, so its isolation ends with the stop
		Lease suspect = this.suspect.get();
		if (suspect != null && !this.held.containsKey(suspect)) {
			ended(suspect);
		}
	}

	/**
	 * A lease held: until when ({@link System#nanoTime()}) it is surely still held in Redis, and whether its handler
	 * started.
	 */
	private static final class Held {

		private volatile long until;

		private volatile boolean started;

		Held(long until, boolean started) {
			this.until = until;
			this.started = started;
		}

		long until() {
			return this.until;
		}

		boolean started() {
			return this.started;
		}

		/** Marks its handler started; only inside the map's {@code computeIfPresent}, atomic with a removal. */
		Held start() {
			this.started = true;
			return this;
		}

		/** Moves its end; only inside the map's {@code computeIfPresent}, atomic with a removal. */
		Held extendTo(long until) {
			this.until = until;
			return this;
		}

	}

}
