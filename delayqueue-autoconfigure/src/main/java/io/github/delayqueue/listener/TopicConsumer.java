package io.github.delayqueue.listener;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import io.github.delayqueue.redis.ClaimResult;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Delivery;
import io.github.delayqueue.redis.Envelope;
import io.github.delayqueue.redis.MalformedEnvelopeException;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.scheduling.TopicTrigger;
import io.github.delayqueue.support.DelayQueueMonitor;
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
 * Consumes one topic: claims as many due messages as it has free handlers (at once again while claims come back
 * full), runs them on its own handler threads, acknowledges in batches, extends the leases of running handlers,
 * retries failures with backoff and buries what cannot succeed.
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
	 * plus as many again, so that the next messages are at hand when a handler finishes, without one instance
	 * hoarding a topic's messages while others are idle.
	 */
	private final int capacity;

	private volatile Executor ioExecutor = Runnable::run;

	private final AtomicInteger busy = new AtomicInteger();

	private final Set<Delivery> running = ConcurrentHashMap.newKeySet();

	private final Queue<Delivery> pendingAcks = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean flushing = new AtomicBoolean();

	private final AtomicBoolean claiming = new AtomicBoolean();

	private volatile boolean claimRequested;

	private volatile boolean backlog;

	private volatile boolean active;

	private volatile boolean claimFailing;

	private @Nullable ThreadPoolExecutor handlers;

	private @Nullable TopicTrigger trigger;

	private @Nullable ScheduledFuture<?> leaseExtension;

	@SuppressWarnings("unchecked")
	private final DelayQueueMonitor monitor;

	private final ObservationRegistry observationRegistry;

	private final @Nullable DelayQueueListenerObservationConvention observationConvention;

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
	 * @param io runs claims, ack flushes and lease extensions (short Redis calls)
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
		this.trigger = this.scheduler.register(this.store.keys(this.topic).wake(), this::requestClaim);
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
							+ "handing their messages back", this.topic, this.running.size(), timeout);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.leaseExtension != null) {
			this.leaseExtension.cancel(false);
		}
		List<Delivery> unfinished = new ArrayList<>(this.running);
		this.running.removeAll(unfinished);
		if (!unfinished.isEmpty()) {
			try {
				this.store.release(this.topic, unfinished);
			}
			catch (RuntimeException ex) {
				logger.warn("Topic '{}': could not hand back {} unfinished message(s); they are redelivered when "
						+ "their lease ends", this.topic, unfinished.size(), ex);
			}
		}
		if (pool != null) {
			pool.shutdownNow();
		}
		flushAcks();
	}

	void requestClaim() {
		if (!this.active) {
			return;
		}
		this.claimRequested = true;
		if (this.claiming.compareAndSet(false, true)) {
			try {
				this.ioExecutor.execute(this::claimLoop);
			}
			catch (RuntimeException ex) {
				this.claiming.set(false);
				logger.debug("Topic '{}': claim not started", this.topic, ex);
			}
		}
	}

	private void claimLoop() {
		try {
			while (this.active) {
				this.claimRequested = false;
				int free = this.capacity - this.busy.get();
				if (free <= 0) {
					this.backlog = true;
					break;
				}
				int limit = Math.min(free, this.options.batchSize());
				ClaimResult result = this.store.claim(this.topic, limit, this.options.visibilityTimeout().toMillis(),
						this.options.maxAttempts());
				if (this.claimFailing) {
					this.claimFailing = false;
					logger.info("Topic '{}': claiming works again", this.topic);
				}
				long claimedNanos = System.nanoTime();
				for (ClaimedMessage message : result.messages()) {
					dispatch(message, result.serverTimeMillis(), claimedNanos);
				}
				long next = result.nextDueDelayMillis();
				if (result.messages().size() == limit || next == 0) {
					continue;
				}
				if (next > 0 && this.trigger != null) {
					this.trigger.armIn(next);
				}
				if (!this.claimRequested) {
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
			this.claiming.set(false);
		}
		if (this.claimRequested && this.active && !this.claimFailing) {
			requestClaim();
		}
	}

	private void dispatch(ClaimedMessage message, long claimServerMillis, long claimedNanos) {
		Delivery delivery = message.delivery();
		this.busy.incrementAndGet();
		this.running.add(delivery);
		ThreadPoolExecutor pool = this.handlers;
		try {
			if (pool == null) {
				throw new IllegalStateException("not started");
			}
			pool.execute(() -> handle(message, delivery, claimServerMillis, claimedNanos));
		}
		catch (RuntimeException ex) {
			// stopping: the message is handed back by stop() or when its lease ends
			this.busy.decrementAndGet();
		}
	}

	private void handle(ClaimedMessage message, Delivery delivery, long claimServerMillis, long claimedNanos) {
		long start = System.nanoTime();
		this.monitor.dispatched(this.topic,
				claimServerMillis - message.dueAtMillis() + TimeUnit.NANOSECONDS.toMillis(start - claimedNanos));
		try {
			Envelope envelope = Envelope.decode(message.envelope());
			Object payload = this.converter.read(envelope.payload(), this.registration.payloadType());
			DeliveredMessage delivered = new DeliveredMessage(message.id(), this.topic,
					Instant.ofEpochMilli(message.dueAtMillis()), envelope.createdAt(), message.attempt(),
					envelope.headers());
			invoke(payload, delivered);
			if (this.running.remove(delivery)) {
				this.pendingAcks.add(delivery);
				scheduleAckFlush();
			}
			this.monitor.handled(this.topic, DelayQueueMonitor.Outcome.SUCCESS, System.nanoTime() - start, null);
		}
		catch (Throwable ex) {
			Throwable cause = unwrap(ex);
			if (this.running.remove(delivery)) {
				DelayQueueMonitor.Outcome outcome = onFailure(delivery, cause);
				this.monitor.handled(this.topic, outcome, System.nanoTime() - start, cause);
			}
			if (ex instanceof Error error && !(ex instanceof AssertionError)) {
				throw error;
			}
		}
		finally {
			this.busy.decrementAndGet();
			if (this.backlog && this.active) {
				this.backlog = false;
				requestClaim();
			}
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

	private DelayQueueMonitor.Outcome onFailure(Delivery delivery, Throwable ex) {
		String error = describe(ex);
		try {
			if (isNotRetryable(ex)) {
				logger.warn("Topic '{}': message {} cannot be handled and goes to the dead letters: {}", this.topic,
						delivery.id(), error);
				this.store.bury(this.topic, delivery, error);
				return DelayQueueMonitor.Outcome.DEAD;
			}
			long delay = (delivery.attempt() < this.options.maxAttempts()) ? backOff(delivery.attempt())
					: BackOffExecution.STOP;
			if (delay == BackOffExecution.STOP) {
				logger.warn("Topic '{}': message {} failed attempt {} of {} and goes to the dead letters: {}",
						this.topic, delivery.id(), delivery.attempt(), this.options.maxAttempts(), error, ex);
				this.store.bury(this.topic, delivery, error);
				return DelayQueueMonitor.Outcome.DEAD;
			}
			logger.info("Topic '{}': message {} failed attempt {} of {}, retrying in {} ms: {}", this.topic,
					delivery.id(), delivery.attempt(), this.options.maxAttempts(), delay, error);
			this.store.retry(this.topic, delivery, delay, error);
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
			if (cause instanceof PayloadConversionException || cause instanceof MalformedEnvelopeException
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
		List<Delivery> batch = new ArrayList<>();
		Delivery delivery;
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
		if (this.running.isEmpty()) {
			return;
		}
		List<Delivery> current = new ArrayList<>(this.running);
		try {
			this.store.extend(this.topic, current, this.options.visibilityTimeout().toMillis());
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': could not extend the leases of {} running handler(s)", this.topic,
					current.size(), ex);
		}
	}

}
