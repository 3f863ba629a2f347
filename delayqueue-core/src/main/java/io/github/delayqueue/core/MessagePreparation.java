package io.github.delayqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.delayqueue.ExpiryAction;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.support.micrometer.DefaultDelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueObservation;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Prepares messages to store, before anything is written: writes and bounds the payload, gives the message its id, its
 * due time (a delay counted from the start of the call) and its expiry, and starts its schedule observation, which
 * stores the trace context in its headers.
 */
final class MessagePreparation {

	private final PayloadConverter converter;

	private final long maxPayloadBytes;

	private final Clock clock = Clock.systemUTC();

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable DelayQueueScheduleObservationConvention observationConvention;

	MessagePreparation(PayloadConverter converter, long maxPayloadBytes) {
		this.converter = converter;
		this.maxPayloadBytes = maxPayloadBytes;
	}

	void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	boolean isObserved() {
		return !this.observationRegistry.isNoop();
	}

	/** The observation current on this thread in the writer's registry, if any. */
	@Nullable Observation currentObservation() {
		return this.observationRegistry.getCurrentObservation();
	}

	void setObservationConvention(@Nullable DelayQueueScheduleObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	Instant now() {
		return this.clock.instant();
	}

	/**
	 * Prepares a message to store: writes and bounds its payload, gives it an id, starts its observation (which
	 * stores the trace context in its headers); its delay counts from {@code sinceNanos}, the start of the call.
	 */
	NewMessage prepare(ScheduleRequest request, Instant now, long sinceNanos, List<Observation> observations) {
		byte[] payload = this.converter.write(request.payload());
		checkSize(request.topic(), payload);
		Expiry expiry = expiryOf(request, now);
		String id = (request.id() != null) ? request.id() : MessageIds.generate();
		Map<String, String> headers = request.headers();
		if (isObserved()) {
			Map<String, String> carrier = new LinkedHashMap<>(headers);
			observations.add(startObservation(carrier, request.topic(), id));
			headers = carrier;
		}
		return new NewMessage(id, dueTime(request.delay(), request.dueAt(), sinceNanos), now, headers, payload, expiry,
				request.group(), request.priority());
	}

	/**
	 * Validates and prepares requests, every one before anything is written (a delay counts from here: the time the
	 * call takes before its script runs is not added to it); their schedule observations have started, and end with
	 * {@link Prepared#end}. A bad request throws, and ends the observations started so far.
	 */
	Prepared prepareAll(List<ScheduleRequest> requests) {
		long sinceNanos = System.nanoTime();
		Instant now = now();
		List<Observation> observations = isObserved() ? new ArrayList<>(requests.size()) : List.of();
		List<NewMessage> messages = new ArrayList<>(requests.size());
		try {
			for (ScheduleRequest request : requests) {
				Assert.notNull(request, "Request must not be null");
				messages.add(prepare(request, now, sinceNanos, observations));
			}
		}
		catch (RuntimeException ex) {
			new Prepared(requests, messages, observations).end(ex);
			throw ex;
		}
		return new Prepared(requests, messages, observations);
	}

	/**
	 * Validated requests, their prepared messages, and the schedule observations that end with their write.
	 *
	 * @param requests the requests
	 * @param messages their messages, in order
	 * @param observations the observations started (none if not observed)
	 */
	record Prepared(List<ScheduleRequest> requests, List<NewMessage> messages, List<Observation> observations) {

		/** Ends the observations: with the write's failure, if it failed. */
		void end(@Nullable Throwable failure) {
			if (failure != null) {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				this.observations.forEach((observation) -> observation.error(cause));
			}
			this.observations.forEach(Observation::stop);
		}

		/** Ends the observations when an asynchronous write completes. */
		<T> CompletableFuture<T> endWith(CompletableFuture<T> write) {
			if (this.observations.isEmpty()) {
				return write;
			}
			return write.whenComplete((result, failure) -> end(failure));
		}

	}

	/** Refuses a payload larger than the queue accepts. */
	void checkSize(String topic, byte[] payload) {
		if (payload.length > this.maxPayloadBytes) {
			throw new PayloadTooLargeException(topic, payload.length, this.maxPayloadBytes);
		}
	}

	/**
	 * Starts the schedule observation of a message, which stores the trace context in {@code carrier}, the headers
	 * the message is then stored with.
	 */
	Observation startObservation(Map<String, String> carrier, String topic, String id) {
		DelayedMessageSenderContext context = new DelayedMessageSenderContext(carrier, topic, id);
		return DelayQueueObservation.SCHEDULE
			.observation(this.observationConvention, DefaultDelayQueueScheduleObservationConvention.INSTANCE,
					() -> context, this.observationRegistry)
			.start();
	}

	private static @Nullable Expiry expiryOf(ScheduleRequest request, Instant now) {
		Instant deadline = request.expiresAt();
		if (deadline == null) {
			return null;
		}
		Duration delay = request.delay();
		Assert.isTrue(delay == null || deadline.isAfter(now.plus(delay)), () -> "Expiry deadline " + deadline
				+ " must be after the due time (now plus the delay " + delay + ": " + now.plus(delay) + ")");
		return new Expiry(deadline, request.onExpiry() == ExpiryAction.DISCARD);
	}

	private static DueTime dueTime(@Nullable Duration delay, @Nullable Instant dueAt, long sinceNanos) {
		if (dueAt != null) {
			long millis = dueAt.toEpochMilli();
			boolean fraction = dueAt.getNano() % 1_000_000 != 0;
			// an instant before 1970 is as due as 1970
			return DueTime.at(Math.max(0, fraction ? millis + 1 : millis));
		}
		return DueTime.in(toMicrosRoundedUp(delay), sinceNanos);
	}

	static long toMicrosRoundedUp(Duration delay) {
		long micros = delay.toNanos() / 1000;
		return (delay.getNano() % 1000 != 0) ? micros + 1 : micros;
	}

}
