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
import io.github.delayqueue.redis.StartResult;
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
 * Consumes one topic: leases due messages (starting as many as it has free handlers, and holding up to
 * {@code batch-size} more to start as handlers free up, their attempts counted only then), runs them on its own
 * handler threads, acknowledges in batches, extends the leases it holds, retries failures with backoff and buries
 * what cannot succeed.
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

	/**
	 * How many claimed messages the topic holds at most, running or waiting for a handler thread: the handlers
	 * plus a batch, so that the next messages are at hand when a handler finishes, without one instance hoarding a
	 * topic's messages while others are idle.
	 */
	private final int capacity;

	private volatile Executor ioExecutor = Runnable::run;

	/** Handler slots taken: handlers running, or reserved for messages whose start is being counted. */
	private final AtomicInteger busy = new AtomicInteger();

	/**
	 * The leases this consumer holds: messages running, starting, or waiting here for a handler. Removing a lease
	 * from this set decides who ends it (the handler's outcome, or the hand-back on stop), so it ends once.
	 */
	private final Set<Lease> held = ConcurrentHashMap.newKeySet();

	/** Leased messages waiting here for a free handler, their attempt not counted yet. Only the pump takes them. */
	private final Deque<Claimed> waiting = new ArrayDeque<>();

	private final Object waitingMonitor = new Object();

	/**
	 * Acknowledges what a handler finished and counts the start of its next message: handler threads that do so at
	 * the same time share one script call.
	 */
	private final GroupCommit<Handover, StartResult> handovers;

	private final Queue<Lease> pendingAcks = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean flushing = new AtomicBoolean();

	private final AtomicBoolean pumping = new AtomicBoolean();

	/** Whether due messages may be waiting in Redis: set by the trigger, and when the holdings were full. */
	private volatile boolean claimWanted;

	private volatile boolean pumpRequested;

	private volatile boolean full;

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
		this.capacity = this.options.concurrency() + this.options.batchSize();
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
	 * Stops claiming, hands the messages waiting here back at once, gives running handlers until the deadline,
	 * then hands what is unfinished back to the queue and interrupts those handlers.
	 */
	synchronized void stop(Duration timeout) {
		if (!this.active) {
			return;
		}
		this.active = false;
		if (this.trigger != null) {
			this.trigger.close();
		}
		List<Lease> notStarted = new ArrayList<>();
		synchronized (this.waitingMonitor) {
			this.waiting.forEach((claimed) -> notStarted.add(claimed.message().lease()));
			this.waiting.clear();
		}
		handBack(notStarted);
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

	/** Asks for a claim: messages may be due in Redis. */
	void requestClaim() {
		this.claimWanted = true;
		requestPump();
	}

	private void requestPump() {
		if (!this.active) {
			return;
		}
		this.pumpRequested = true;
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

	/**
	 * Fills free handlers: first with messages waiting here (counting their start), then with due messages
	 * claimed from Redis; tops the holdings up to the capacity while claims come back full.
	 */
	private void pump() {
		try {
			while (this.active) {
				this.pumpRequested = false;
				boolean again = startWaiting();
				if (this.claimWanted) {
					again |= claim();
					// handlers that finished while the claim ran may have found nothing waiting yet
					again |= hasWaiting() && this.busy.get() < this.options.concurrency();
				}
				if (!again && !this.pumpRequested) {
					break;
				}
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
		if (this.pumpRequested && this.active && !this.claimFailing) {
			requestPump();
		}
	}

	/**
	 * Takes waiting messages for the free handlers and has their start counted on an I/O thread, which runs them
	 * once Redis has counted it; returns whether it took any. The pump does not wait for Redis, so several starts
	 * can be in flight while handlers finish.
	 */
	private boolean startWaiting() {
		List<Claimed> batch = new ArrayList<>();
		synchronized (this.waitingMonitor) {
			int free = this.options.concurrency() - this.busy.get();
			while (free-- > 0 && !this.waiting.isEmpty()) {
				batch.add(this.waiting.poll());
			}
		}
		if (batch.isEmpty()) {
			return false;
		}
		this.busy.addAndGet(batch.size());
		try {
			this.ioExecutor.execute(() -> startBatch(batch));
		}
		catch (RuntimeException ex) {
			giveBack(batch);
			throw ex;
		}
		return true;
	}

	/** Counts the start of messages whose handler slots are taken, and runs those Redis counted. */
	private void startBatch(List<Claimed> batch) {
		List<StartResult> results;
		try {
			results = this.store.start(this.topic, batch.stream().map((claimed) -> claimed.message().lease()).toList(),
					this.options.maxAttempts());
		}
		catch (RuntimeException ex) {
			giveBack(batch);
			if (!this.claimFailing) {
				this.claimFailing = true;
				logger.warn("Topic '{}': counting handler starts failed; trying again on the next poll", this.topic,
						ex);
			}
			return;
		}
		int expired = 0;
		for (int i = 0; i < batch.size(); i++) {
			Claimed claimed = batch.get(i);
			StartResult result = results.get(i);
			if (result.outcome() == StartResult.Outcome.STARTED) {
				dispatch(claimed.started(result.attempt()));
				continue;
			}
			this.busy.decrementAndGet();
			this.held.remove(claimed.message().lease());
			if (result.outcome() == StartResult.Outcome.BURIED) {
				expired++;
			}
		}
		if (expired > 0) {
			this.monitor.expired(this.topic, expired);
		}
		if (expired < batch.size()) {
			requestPump();
		}
	}

	/** Puts messages whose start could not be counted back in front of the waiting ones, freeing their slots. */
	private void giveBack(List<Claimed> batch) {
		synchronized (this.waitingMonitor) {
			for (int i = batch.size() - 1; i >= 0; i--) {
				this.waiting.addFirst(batch.get(i));
			}
		}
		this.busy.addAndGet(-batch.size());
	}

	/** Claims due messages; returns whether to claim again at once (the claim came back full, or more are due). */
	private boolean claim() {
		this.claimWanted = false;
		int room = this.capacity - this.held.size();
		if (room <= 0 || (room < refillThreshold() && hasWaiting())) {
			// claimed again once handlers made room
			this.full = true;
			return false;
		}
		int limit = Math.min(room, this.options.batchSize());
		int toStart;
		synchronized (this.waitingMonitor) {
			toStart = this.waiting.isEmpty()
					? Math.max(0, Math.min(limit, this.options.concurrency() - this.busy.get())) : 0;
		}
		this.busy.addAndGet(toStart);
		Claim claim;
		try {
			claim = this.store.claim(this.topic, toStart, limit - toStart,
					this.options.visibilityTimeout().toMillis(), this.options.maxAttempts());
		}
		catch (RuntimeException ex) {
			this.busy.addAndGet(-toStart);
			this.claimWanted = true;
			throw ex;
		}
		if (this.claimFailing) {
			this.claimFailing = false;
			logger.info("Topic '{}': claiming works again", this.topic);
		}
		long claimedNanos = System.nanoTime();
		int started = 0;
		for (ClaimedMessage message : claim.messages()) {
			this.held.add(message.lease());
			Claimed claimed = new Claimed(message, claim.serverTime(), claimedNanos);
			if (message.isStarted()) {
				started++;
				dispatch(claimed);
			}
			else {
				synchronized (this.waitingMonitor) {
					this.waiting.add(claimed);
				}
			}
		}
		this.busy.addAndGet(started - toStart);
		if (claim.buried() > 0) {
			this.monitor.expired(this.topic, claim.buried());
		}
		if (!this.active) {
			// stopped while claiming: what stop() did not see is handed back here
			List<Lease> notStarted = new ArrayList<>();
			synchronized (this.waitingMonitor) {
				this.waiting.forEach((waiter) -> notStarted.add(waiter.message().lease()));
				this.waiting.clear();
			}
			handBack(notStarted);
			return false;
		}
		long next = claim.nextWakeDelayMillis();
		if (claim.messages().size() == limit || next == 0) {
			this.claimWanted = true;
			return true;
		}
		if (next > 0 && this.trigger != null) {
			this.trigger.armIn(next);
		}
		return false;
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
	 * Runs on a handler thread: handles a started message, then the messages waiting here one after another, each
	 * started (its attempt counted) by this thread before it runs, until none waits; then frees the handler slot.
	 */
	private void runHandler(Claimed first) {
		try {
			Claimed current = first;
			while (current != null) {
				Lease done = handle(current);
				if (this.full && this.active && this.capacity - this.held.size() >= refillThreshold()) {
					this.full = false;
					this.claimWanted = true;
					requestPump();
				}
				current = takeNext(done);
			}
		}
		finally {
			this.busy.decrementAndGet();
			if (this.claimWanted || hasWaiting()) {
				requestPump();
			}
		}
	}

	/**
	 * The next waiting message with its start counted, or {@code null} if none waits (or Redis fails); the
	 * message just delivered, if any, is acknowledged in the same call, or queued for the batched acks.
	 */
	private @Nullable Claimed takeNext(@Nullable Lease delivered) {
		Lease ack = delivered;
		try {
			while (this.active) {
				Claimed next;
				synchronized (this.waitingMonitor) {
					next = this.waiting.poll();
				}
				if (next == null) {
					return null;
				}
				StartResult result;
				try {
					result = this.handovers.submit(List.of(new Handover(ack, next.message().lease()))).get(0);
					ack = null;
				}
				catch (RuntimeException ex) {
					synchronized (this.waitingMonitor) {
						this.waiting.addFirst(next);
					}
					logger.debug("Topic '{}': counting a handler start failed", this.topic, ex);
					return null;
				}
				if (result.outcome() == StartResult.Outcome.STARTED) {
					return next.started(result.attempt());
				}
				this.held.remove(next.message().lease());
				if (result.outcome() == StartResult.Outcome.BURIED) {
					this.monitor.expired(this.topic, 1);
				}
			}
			return null;
		}
		finally {
			if (ack != null) {
				this.pendingAcks.add(ack);
				scheduleAckFlush();
			}
		}
	}

	private List<StartResult> handOver(List<Handover> handovers) {
		List<Lease> acks = new ArrayList<>();
		List<Lease> starts = new ArrayList<>(handovers.size());
		for (Handover handover : handovers) {
			if (handover.ack() != null) {
				acks.add(handover.ack());
			}
			starts.add(handover.start());
		}
		return this.store.start(this.topic, acks, starts, this.options.maxAttempts());
	}

	/** How much room the holdings need before the next claim, while messages still wait here. */
	private int refillThreshold() {
		return Math.max(1, this.options.batchSize() / 2);
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

	private boolean hasWaiting() {
		synchronized (this.waitingMonitor) {
			return !this.waiting.isEmpty();
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

	/** What a handler thread sends when it takes its next message: the lease it finished (if any) and the next. */
	private record Handover(@Nullable Lease ack, Lease start) {
	}

	/** A leased message with the Redis and local time of its claim, for the lateness at handler start. */
	private record Claimed(ClaimedMessage message, Instant claimServerTime, long claimedNanos) {

		Claimed started(int attempt) {
			return new Claimed(this.message.started(attempt), this.claimServerTime, this.claimedNanos);
		}

	}

	/** A stored message that cannot be read: it goes to the dead letters with the reason. */
	static final class UnreadableMessageException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UnreadableMessageException(@Nullable String reason) {
			super("Unreadable stored message: " + reason);
		}

	}

}
