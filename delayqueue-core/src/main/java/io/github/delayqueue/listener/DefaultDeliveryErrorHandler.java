package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConversionException;

import org.springframework.util.backoff.BackOffExecution;

/**
 * The default {@link DeliveryErrorHandler}: a failure that cannot succeed on a retry goes to the dead letters at once
 * (a payload that cannot be read as the listener's type, a stored message that cannot be decoded, a
 * {@link NonRetryableException} or one of the listener's {@link ListenerOptions#notRetryable() not-retryable} types,
 * anywhere in the cause chain); any other is retried after the listener's backoff for the attempt, until
 * {@link ListenerOptions#maxAttempts() max-attempts} attempts have failed or the backoff stops.
 *
 * @since 0.2.0
 */
public final class DefaultDeliveryErrorHandler implements DeliveryErrorHandler {

	/** The shared instance. */
	public static final DefaultDeliveryErrorHandler INSTANCE = new DefaultDeliveryErrorHandler();

	private DefaultDeliveryErrorHandler() {
	}

	@Override
	public FailureAction handle(DeliveredMessage message, Throwable failure, ListenerOptions options) {
		if (isNotRetryable(failure, options) || message.attempt() >= options.maxAttempts()) {
			return FailureAction.deadLetter();
		}
		long delay = backOff(options, message.attempt());
		return (delay == BackOffExecution.STOP) ? FailureAction.deadLetter()
				: FailureAction.retryIn(Duration.ofMillis(delay));
	}

	/** The backoff before attempt {@code attempt + 1}: the backoff's {@code attempt}-th delay. */
	private static long backOff(ListenerOptions options, int attempt) {
		BackOffExecution execution = options.backOff().start();
		long delay = 0;
		for (int i = 0; i < attempt; i++) {
			delay = execution.nextBackOff();
			if (delay == BackOffExecution.STOP) {
				break;
			}
		}
		return delay;
	}

	private static boolean isNotRetryable(Throwable failure, ListenerOptions options) {
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			if (cause instanceof PayloadConversionException || cause instanceof NonRetryableException) {
				return true;
			}
			for (Class<? extends Throwable> type : options.notRetryable()) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

}
