package io.github.delayqueue.listener;

import java.lang.reflect.InvocationTargetException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.StoredMessage;
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

/**
 * Runs a topic's handler for one delivery: reads the payload as the listener's type, builds the
 * {@link DeliveredMessage}, observes the call, and tells the monitor when the handler starts. A failing monitor is
 * logged, never allowed to change what becomes of the message.
 */
final class ListenerInvoker {

	private static final Logger logger = LoggerFactory.getLogger(ListenerInvoker.class);

	private final ListenerRegistration<Object> registration;

	private final PayloadConverter converter;

	private final DelayQueueMonitor monitor;

	private final ObservationRegistry observationRegistry;

	private final @Nullable DelayQueueListenerObservationConvention observationConvention;

	ListenerInvoker(ListenerRegistration<Object> registration, PayloadConverter converter, DelayQueueMonitor monitor,
			ObservationRegistry observationRegistry,
			@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.registration = registration;
		this.converter = converter;
		this.monitor = monitor;
		this.observationRegistry = observationRegistry;
		this.observationConvention = observationConvention;
	}

	/** How late the handler starts: the claim's server time past the due time, plus the time since the claim. */
	static long lateMillis(Instant dueAt, Delivery delivery) {
		Instant claimed = delivery.claimServerTime();
		long nanos = (claimed.getEpochSecond() - dueAt.getEpochSecond()) * 1_000_000_000L
				+ (claimed.getNano() - dueAt.getNano()) + (System.nanoTime() - delivery.claimedNanos());
		return Math.floorDiv(nanos, 1_000_000L);
	}

	/**
	 * Runs the handler.
	 * @param delivery the delivery
	 * @return what it threw (unwrapped from reflection), or why the message could not be read, and whether the call
	 * was observed
	 */
	Result invoke(Delivery delivery) {
		ClaimedMessage message = delivery.message();
		String topic = this.registration.topic();
		try {
			this.monitor.dispatched(topic, message.message().group(), lateMillis(message.dueAt(), delivery));
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed; the message is handled regardless", topic, ex);
		}
		DeliveredMessage delivered = deliveredMessage(delivery);
		Object payload;
		try {
			StoredMessage stored = message.message();
			if (!stored.isReadable()) {
				String reason = stored.malformation();
				throw new UnreadableMessageException((reason != null) ? reason : "unknown format");
			}
			payload = this.converter.read(stored.payload(), this.registration.payloadType());
		}
		catch (Throwable ex) {
			return new Result(delivered, unwrap(ex), false, null, Observation.NOOP);
		}
		Observation observation = observation(delivered);
		if (this.registration.handler() instanceof AsyncDelayedMessageHandler<Object> async) {
			return callAsync(async, observation, payload, delivered);
		}
		try {
			call(observation, payload, delivered);
			return new Result(delivered, null, !observation.isNoop(), null, observation);
		}
		catch (Throwable ex) {
			return new Result(delivered, unwrap(ex), !observation.isNoop(), null, observation);
		}
	}

	/**
	 * Starts a handler whose work completes later: the observation ends when the work does. What it throws before
	 * the work exists, or a {@code null} in its place, is a failure now.
	 */
	@SuppressWarnings("try")
	private Result callAsync(AsyncDelayedMessageHandler<Object> handler, Observation observation, Object payload,
			DeliveredMessage delivered) {
		boolean observed = !observation.isNoop();
		CompletionStage<?> work;
		if (observed) {
			observation.start();
		}
		try (Observation.Scope scope = observed ? observation.openScope() : null) {
			work = handler.handleAsync(payload, delivered);
			if (work == null) {
				throw new IllegalStateException("Listener " + handler + " returned null instead of a CompletionStage for"
						+ " message " + delivered.id());
			}
		}
		catch (Throwable ex) {
			Throwable failure = unwrap(ex);
			if (observed) {
				observation.error(failure);
				observation.stop();
			}
			return new Result(delivered, failure, observed, null, observation);
		}
		CompletableFuture<?> pending = work.toCompletableFuture();
		if (observed) {
			pending.whenComplete((value, failure) -> {
				// a handler timeout cancels the work and has said so already
				if (failure != null && observation.getContext().getError() == null) {
					observation.error(completionCause(failure));
				}
				observation.stop();
			});
		}
		return new Result(delivered, null, observed, pending, observation);
	}

	/** What a completed stage failed with, without the wrapper a dependent stage adds. */
	static Throwable completionCause(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return unwrap(current);
	}

	/**
	 * The message as its handler sees it; for a stored message that cannot be read, the creation time is the epoch
	 * and the headers are empty.
	 */
	/** The message as the handler sees it (without its payload). */
	DeliveredMessage deliveredMessage(Delivery delivery) {
		ClaimedMessage message = delivery.message();
		StoredMessage stored = message.message();
		Instant createdAt = stored.createdAt();
		return new DeliveredMessage(message.id(), this.registration.topic(), message.dueAt(),
				(createdAt != null) ? createdAt : Instant.EPOCH, message.attempt(), stored.headers(), message.suspect(),
				stored.group(), stored.priority());
	}

	private Observation observation(DeliveredMessage delivered) {
		if (this.observationRegistry.isNoop()) {
			return Observation.NOOP;
		}
		DelayedMessageReceiverContext context = new DelayedMessageReceiverContext(delivered.headers(),
				delivered.topic(), delivered.id(), delivered.attempt());
		return DelayQueueObservation.LISTENER.observation(this.observationConvention,
				DefaultDelayQueueListenerObservationConvention.INSTANCE, () -> context, this.observationRegistry);
	}

	@SuppressWarnings("try")
	private void call(Observation observation, Object payload, DeliveredMessage delivered) throws Exception {
		if (observation.isNoop()) {
			this.registration.handler().handle(payload, delivered);
			return;
		}
		observation.start();
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

	static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while (current instanceof InvocationTargetException && current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/**
	 * What a handler call came to.
	 * @param delivered the message as its handler saw it (or would have)
	 * @param failure what it threw, or why the message could not be read; {@code null} if it returned
	 * @param observed whether the call ran in an observation (which may time it)
	 * @param pending the work of a handler that completes later, started without a failure; {@code null} for a
	 * blocking handler, whose outcome is known
	 * @param observation the call's observation ({@link Observation#NOOP} if none); a handler's work that completes
	 * later ends it as it completes
	 */
	record Result(DeliveredMessage delivered, @Nullable Throwable failure, boolean observed,
			@Nullable CompletableFuture<?> pending, Observation observation) {
	}

}
