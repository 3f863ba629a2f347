package io.github.delayqueue.listener;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConversionException;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.StoredMessage;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.scheduling.TopicTrigger;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.GroupCommit;
import io.github.delayqueue.support.micrometer.DefaultDelayQueueListenerObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueObservation;
import io.github.delayqueue.support.micrometer.DelayedMessageReceiverContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.backoff.BackOffExecution;

/**
 * Consumes one topic: leases due messages only for handlers free to run them (their attempt counted by the lease,
 * so no message waits here charged), runs them on its own handler threads, extends the leases it holds, retries
 * failures with backoff and buries what cannot succeed. A handler that finishes a message acknowledges it and
 * leases its next one in the same call, shared by the handlers that do so at the same time.
 */
final class TopicConsumer {

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private static final int MAX_ERROR_LENGTH = 2000;

	private final ListenerRegistration<Object> registration;

	private final String topic;

	private final ListenerOptions options;

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final DelayedMessageScheduler scheduler;

	private volatile Executor ioExecutor = Runnable::run;

	/** Handler slots taken: handlers running, or reserved for the messages of a claim in flight. */
	private final AtomicInteger busy = new AtomicInteger();

	/**
	 * The leases this consumer holds: messages whose handler runs or is about to. Removing a lease from this set
	 * decides who ends it (the handler's outcome, or the hand-back on stop), so it ends once.
	 */
	private final Set<Lease> held = ConcurrentHashMap.newKeySet();

	/**
	 * Acknowledges what handlers finished and leases their next messages: handler threads that do so at the same
	 * time share one script call.
	 */
	private final GroupCommit<Handover, @Nullable Claimed> handovers;

	private final Queue<Lease> pendingAcks = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean flushing = new AtomicBoolean();

	private final AtomicBoolean pumping = new AtomicBoolean();

	/**
	 * Whether to claim: set by the trigger (a message may be due, or a lease may have ended) and when a claim or a
	 * handover left due messages behind while handlers were free.
	 */
	private volatile boolean claimWanted;

	private volatile boolean active;

	private volatile boolean claimFailing;

	private @Nullable ThreadPoolExecutor handlers;

	private @Nullable TopicTrigger trigger;

	private @Nullable ScheduledFuture<?> leaseExtension;

	private final DelayQueueMonitor monitor;

	private final ObservationRegistry observationRegistry;

	private final @Nullable DelayQueueListenerObservationConvention observationConvention;

	@SuppressWarnings("unchecked")
	TopicConsumer(ListenerRegistration<?> registration, RedisMessageStore store, PayloadConverter converter,
			DelayedMessageScheduler scheduler, DelayQueueMonitor monitor, ObservationRegistry observationRegistry,
			@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.monitor = monitor;
		this.observationRegistry = observationRegistry;
		this.observationConvention = observationConvention;
		this.registration = (ListenerRegistration<Object>) registration;
		this.topic = registration.topic();
		this.options = registration.options();
		this.store = store;
		this.converter = converter;
		this.scheduler = scheduler;
		this.handovers = new GroupCommit<>(this::handOver, RedisMessageStore.CHUNK_SIZE, 2);
	}

	String topic() {
		return this.topic;
	}

	ListenerRegistration<?> registration() {
		return this.registration;
	}

	boolean isActive() {
		return this.active;
	}

	int inFlight() {
		return this.busy.get();
	}

	boolean isClaimFailing() {
		return this.claimFailing;
	}

	/**
	 * Starts consuming.
	 * @param io runs claims, starts, ack flushes and lease extensions (short Redis calls)
	 * @param maintenance schedules the lease extensions
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		this.ioExecutor = io;
		AtomicInteger count = new AtomicInteger();
		this.handlers = new ThreadPoolExecutor(this.options.concurrency(), this.options.concurrency(), 60,
				TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (runnable) -> {
					Thread thread = new Thread(runnable, "delayqueue-" + this.topic + "-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.handlers.allowCoreThreadTimeOut(true);
		this.active = true;
		this.trigger = this.scheduler.register(this.store.wakeChannel(this.topic), this::requestClaim);
		try {
			this.store.registerTopics(List.of(this.topic));
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': could not add it to the known topics", this.topic, ex);
		}
		long period = Math.max(50, this.options.visibilityTimeout().toMillis() / 3);
		this.leaseExtension = maintenance.scheduleWithFixedDelay(
				() -> this.ioExecutor.execute(this::extendLeases), period, period, TimeUnit.MILLISECONDS);
		requestClaim();
	}

	/**
	 * Stops claiming, gives running handlers until the deadline, then hands what is unfinished back to the queue
	 * and interrupts those handlers.
	 */
	synchronized void stop(Duration timeout) {
		if (!this.active) {
			return;
		}
		this.active = false;
		if (this.trigger != null) {
			this.trigger.close();
		}
		ThreadPoolExecutor pool = this.handlers;
		if (pool != null) {
			pool.shutdown();
			try {
				if (!pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
					logger.warn("Topic '{}': {} handler(s) still running after the shutdown timeout of {}; "
							+ "handing their messages back", this.topic, this.busy.get(), timeout);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.leaseExtension != null) {
			this.leaseExtension.cancel(false);
		}
		handBack(new ArrayList<>(this.held));
		if (pool != null) {
			pool.shutdownNow();
		}
		flushAcks();
	}

	/** Hands leases back to the queue, each unless its outcome was decided meanwhile. */
	private void handBack(List<Lease> leases) {
		List<Lease> unfinished = new ArrayList<>(leases.size());
		for (Lease lease : leases) {
			if (this.held.remove(lease)) {
				unfinished.add(lease);
			}
		}
		if (unfinished.isEmpty()) {
			return;
		}
		try {
			this.store.release(this.topic, unfinished);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': could not hand back {} unfinished message(s); they are redelivered when "
					+ "their lease ends", this.topic, unfinished.size(), ex);
		}
	}

	/** Asks for a claim: messages may be due in Redis, or leases may have ended. */
	void requestClaim() {
		this.claimWanted = true;
		if (!this.active) {
			return;
		}
		if (this.pumping.compareAndSet(false, true)) {
			try {
				this.ioExecutor.execute(this::pump);
			}
			catch (RuntimeException ex) {
				this.pumping.set(false);
				logger.debug("Topic '{}': claim not started", this.topic, ex);
			}
		}
	}

	/** Claims while a claim is wanted: for the free handlers, and for the upkeep even if none is free. */
	private void pump() {
		try {
			while (this.active && this.claimWanted) {
				this.claimWanted = false;
				claim();
			}
		}
		catch (RuntimeException ex) {
			if (!this.claimFailing) {
				this.claimFailing = true;
				logger.warn("Topic '{}': claiming failed; trying again on the next poll", this.topic, ex);
			}
			else {
				logger.debug("Topic '{}': claiming failed again", this.topic, ex);
			}
		}
		finally {
			this.pumping.set(false);
		}
		if (this.claimWanted && this.active && !this.claimFailing) {
			requestClaim();
		}
	}

	/** Claims due messages for the free handlers and runs them; asks to claim again if more are due for them. */
	private void claim() {
		int limit = Math.max(0, Math.min(this.options.batchSize(), this.options.concurrency() - this.busy.get()));
		this.busy.addAndGet(limit);
		Claim claim;
		try {
			claim = this.store.claim(this.topic, limit, this.options.visibilityTimeout().toMillis(),
					this.options.maxAttempts());
		}
		catch (RuntimeException ex) {
			this.busy.addAndGet(-limit);
			this.claimWanted = true;
			throw ex;
		}
		if (this.claimFailing) {
			this.claimFailing = false;
			logger.info("Topic '{}': claiming works again", this.topic);
		}
		this.busy.addAndGet(claim.messages().size() - limit);
		if (!this.active) {
			// stopped while claiming: handed back unstarted (their attempt is not counted)
			handBackUnstarted(claim);
			return;
		}
		dispatchAll(claim);
		long next = claim.nextWakeDelayMicros();
		if (next == 0 && this.busy.get() < this.options.concurrency()) {
			// more are due than this claim took (or some were buried), and handlers are free for them
			this.claimWanted = true;
		}
		else if (next > 0 && this.trigger != null) {
			this.trigger.armIn(next, TimeUnit.MICROSECONDS);
		}
	}

	private void handBackUnstarted(Claim claim) {
		List<Lease> leases = new ArrayList<>(claim.messages().size());
		for (ClaimedMessage message : claim.messages()) {
			this.held.add(message.lease());
			leases.add(message.lease());
		}
		handBack(leases);
	}

	/** Runs each message of a claim on a handler thread, their handler slots taken already. */
	private void dispatchAll(Claim claim) {
		long claimedNanos = System.nanoTime();
		for (ClaimedMessage message : claim.messages()) {
			this.held.add(message.lease());
			dispatch(new Claimed(message, claim.serverTime(), claimedNanos));
		}
		if (claim.buried() > 0) {
			this.monitor.expired(this.topic, claim.buried());
		}
	}

	/** Runs a started message on a handler thread; its handler slot is taken already. */
	private void dispatch(Claimed claimed) {
		ThreadPoolExecutor pool = this.handlers;
		try {
			if (pool == null) {
				throw new IllegalStateException("not started");
			}
			pool.execute(() -> runHandler(claimed));
		}
		catch (RuntimeException ex) {
			// stopping: the message is handed back by stop()
			this.busy.decrementAndGet();
			if (!this.active) {
				handBack(List.of(claimed.message().lease()));
			}
		}
	}

	/**
	 * Runs on a handler thread: handles a started message, then, while messages are due, the next one leased in
	 * the call that acknowledges the previous; then frees the handler slot.
	 */
	private void runHandler(Claimed first) {
		try {
			Claimed current = first;
			while (current != null) {
				current = takeNext(handle(current));
			}
		}
		finally {
			this.busy.decrementAndGet();
			if (this.claimWanted) {
				requestClaim();
			}
		}
	}

	/**
	 * Acknowledges the message just delivered (if any) and leases this handler's next due message in one call
	 * shared with the handlers that do so at the same time; {@code null} if none is due, the consumer stops, or
	 * Redis fails (the acknowledgement then goes to the batched ones).
	 */
	private @Nullable Claimed takeNext(@Nullable Lease delivered) {
		if (!this.active) {
			if (delivered != null) {
				this.pendingAcks.add(delivered);
				scheduleAckFlush();
			}
			return null;
		}
		try {
			return this.handovers.submit(List.of(new Handover(delivered))).get(0);
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': acknowledging and leasing the next message failed", this.topic, ex);
			if (delivered != null) {
				this.pendingAcks.add(delivered);
				scheduleAckFlush();
			}
			return null;
		}
	}

	/** Sends handovers in one call: their acknowledgements, and one due message leased for each handler. */
	private List<@Nullable Claimed> handOver(List<Handover> handovers) {
		List<Lease> acks = new ArrayList<>(handovers.size());
		for (Handover handover : handovers) {
			if (handover.ack() != null) {
				acks.add(handover.ack());
			}
		}
		int limit = this.active ? handovers.size() : 0;
		Claim claim = this.store.ackAndClaim(this.topic, acks, limit, this.options.visibilityTimeout().toMillis(),
				this.options.maxAttempts());
		List<@Nullable Claimed> next = new ArrayList<>(handovers.size());
		if (!this.active) {
			// stopped meanwhile: handed back unstarted (their attempt is not counted)
			handBackUnstarted(claim);
			claim = new Claim(claim.serverTime(), List.of(), -1, claim.buried());
		}
		long claimedNanos = System.nanoTime();
		for (ClaimedMessage message : claim.messages()) {
			this.held.add(message.lease());
			next.add(new Claimed(message, claim.serverTime(), claimedNanos));
		}
		while (next.size() < handovers.size()) {
			next.add(null);
		}
		if (claim.buried() > 0) {
			this.monitor.expired(this.topic, claim.buried());
		}
		long delay = claim.nextWakeDelayMicros();
		if (delay == 0 && claim.messages().size() < limit) {
			// some were buried instead: the handlers left without a message claim the rest
			this.claimWanted = true;
		}
		else if (delay > 0 && this.trigger != null) {
			this.trigger.armIn(delay, TimeUnit.MICROSECONDS);
		}
		return next;
	}

	/** Handles one started message; returns its lease to acknowledge if the handler returned, else {@code null}. */
	private @Nullable Lease handle(Claimed claimed) {
		ClaimedMessage message = claimed.message();
		Lease lease = message.lease();
		long start = System.nanoTime();
		try {
			this.monitor.dispatched(this.topic, Duration.between(message.dueAt(), claimed.claimServerTime())
				.plusNanos(start - claimed.claimedNanos())
				.toMillis());
			StoredMessage stored = message.message();
			if (!stored.isReadable()) {
				throw new UnreadableMessageException(stored.malformation());
			}
			Object payload = this.converter.read(stored.payload(), this.registration.payloadType());
			DeliveredMessage delivered = new DeliveredMessage(message.id(), this.topic, message.dueAt(),
					stored.createdAt(), message.attempt(), stored.headers());
			invoke(payload, delivered);
			this.monitor.handled(this.topic, DelayQueueMonitor.Outcome.SUCCESS, System.nanoTime() - start, null);
			return this.held.remove(lease) ? lease : null;
		}
		catch (Throwable ex) {
			Throwable cause = unwrap(ex);
			if (this.held.remove(lease)) {
				DelayQueueMonitor.Outcome outcome = onFailure(message, cause);
				this.monitor.handled(this.topic, outcome, System.nanoTime() - start, cause);
			}
			if (ex instanceof Error error && !(ex instanceof AssertionError)) {
				throw error;
			}
			return null;
		}
	}

	private void invoke(Object payload, DeliveredMessage delivered) throws Exception {
		if (this.observationRegistry.isNoop()) {
			this.registration.handler().handle(payload, delivered);
			return;
		}
		DelayedMessageReceiverContext context = new DelayedMessageReceiverContext(delivered.headers(), this.topic,
				delivered.id(), delivered.attempt());
		Observation observation = DelayQueueObservation.LISTENER
			.observation(this.observationConvention, DefaultDelayQueueListenerObservationConvention.INSTANCE,
					() -> context, this.observationRegistry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			this.registration.handler().handle(payload, delivered);
		}
		catch (Exception | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	private DelayQueueMonitor.Outcome onFailure(ClaimedMessage delivery, Throwable ex) {
		String error = describe(ex);
		try {
			if (isNotRetryable(ex)) {
				logger.warn("Topic '{}': message {} cannot be handled and goes to the dead letters: {}", this.topic,
						delivery.id(), error);
				this.store.bury(this.topic, delivery.lease(), error);
				return DelayQueueMonitor.Outcome.DEAD;
			}
			long delay = (delivery.attempt() < this.options.maxAttempts()) ? backOff(delivery.attempt())
					: BackOffExecution.STOP;
			if (delay == BackOffExecution.STOP) {
				logger.warn("Topic '{}': message {} failed attempt {} of {} and goes to the dead letters: {}",
						this.topic, delivery.id(), delivery.attempt(), this.options.maxAttempts(), error, ex);
				this.store.bury(this.topic, delivery.lease(), error);
				return DelayQueueMonitor.Outcome.DEAD;
			}
			logger.info("Topic '{}': message {} failed attempt {} of {}, retrying in {} ms: {}", this.topic,
					delivery.id(), delivery.attempt(), this.options.maxAttempts(), delay, error);
			this.store.retry(this.topic, delivery.lease(), delay, error);
		}
		catch (RuntimeException storeFailure) {
			logger.warn("Topic '{}': could not record the failure of message {}; it is redelivered when its lease "
					+ "ends", this.topic, delivery.id(), storeFailure);
		}
		return DelayQueueMonitor.Outcome.RETRY;
	}

	private long backOff(int attempt) {
		BackOffExecution execution = this.options.backOff().start();
		long delay = 0;
		for (int i = 0; i < attempt; i++) {
			delay = execution.nextBackOff();
			if (delay == BackOffExecution.STOP) {
				break;
			}
		}
		return delay;
	}

	private boolean isNotRetryable(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof PayloadConversionException || cause instanceof UnreadableMessageException
					|| cause instanceof NonRetryableException) {
				return true;
			}
			for (Class<? extends Throwable> type : this.options.notRetryable()) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while (current instanceof InvocationTargetException && current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	static String describe(Throwable ex) {
		String text = ex.getClass().getName() + ((ex.getMessage() != null) ? ": " + ex.getMessage() : "");
		return (text.length() > MAX_ERROR_LENGTH) ? text.substring(0, MAX_ERROR_LENGTH) : text;
	}

	private void scheduleAckFlush() {
		if (this.flushing.compareAndSet(false, true)) {
			try {
				this.ioExecutor.execute(this::flushAcksLoop);
			}
			catch (RuntimeException ex) {
				this.flushing.set(false);
				flushAcks();
			}
		}
	}

	private void flushAcksLoop() {
		try {
			flushAcks();
		}
		finally {
			this.flushing.set(false);
		}
		if (!this.pendingAcks.isEmpty()) {
			scheduleAckFlush();
		}
	}

	private void flushAcks() {
		List<Lease> batch = new ArrayList<>();
		Lease delivery;
		while ((delivery = this.pendingAcks.poll()) != null) {
			batch.add(delivery);
		}
		if (batch.isEmpty()) {
			return;
		}
		try {
			this.store.ack(this.topic, batch);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': could not acknowledge {} message(s); they are redelivered when their lease ends",
					this.topic, batch.size(), ex);
		}
	}

	private void extendLeases() {
		if (this.held.isEmpty()) {
			return;
		}
		List<Lease> current = new ArrayList<>(this.held);
		try {
			this.store.extend(this.topic, current, this.options.visibilityTimeout().toMillis());
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': could not extend the leases of {} message(s)", this.topic,
					current.size(), ex);
		}
	}

	/** What a handler thread sends when it is free for its next message: the lease it delivered, if any. */
	private record Handover(@Nullable Lease ack) {
	}

	/** A leased message with the Redis and local time of its claim, for the lateness at handler start. */
	private record Claimed(ClaimedMessage message, Instant claimServerTime, long claimedNanos) {
	}

	/** A stored message that cannot be read: it goes to the dead letters with the reason. */
	static final class UnreadableMessageException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UnreadableMessageException(@Nullable String reason) {
			super("Unreadable stored message: " + reason);
		}

	}

}
