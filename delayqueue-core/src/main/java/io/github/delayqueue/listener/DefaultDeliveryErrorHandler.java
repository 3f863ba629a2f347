package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConversionException;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The default {@link DeliveryErrorHandler}, which owns its policy as spring-kafka's {@code DefaultErrorHandler(BackOff)}
 * does: a failure that cannot succeed on a retry goes to the dead letters at once (a payload that cannot be read as
 * the listener's type, a stored message that cannot be decoded, a {@link NonRetryableException} or one of its
 * {@link #withNotRetryable not-retryable} types, anywhere in the cause chain); any other is retried after its
 * {@link BackOff}'s delay for the attempt, until the backoff stops (and at most until the listener's
 * {@link ListenerOptions#maxAttempts() max-attempts} attempts have failed). Immutable.
 *
 * <pre class="code">
 * new DefaultDeliveryErrorHandler(DefaultDeliveryErrorHandler.exponentialBackOff(Duration.ofMillis(200), 2.0,
 *         Duration.ofMinutes(1)))
 *     .withNotRetryable(IllegalArgumentException.class)
 * </pre>
 *
 * @since 0.2.0
 */
public final class DefaultDeliveryErrorHandler implements DeliveryErrorHandler {

	/** The default instance: the {@link #defaultBackOff() default backoff}, no not-retryable types of its own. */
	public static final DefaultDeliveryErrorHandler INSTANCE = new DefaultDeliveryErrorHandler();

	private final BackOff backOff;

	private final List<Class<? extends Throwable>> notRetryable;

	/** Creates a handler with the {@link #defaultBackOff() default backoff}. */
	public DefaultDeliveryErrorHandler() {
		this(defaultBackOff());
	}

	/**
	 * Creates a handler with the given backoff.
	 * @param backOff the delays between attempts; {@link BackOffExecution#STOP} sends the message to the dead
	 * letters
	 * @since 1.0.0
	 */
	public DefaultDeliveryErrorHandler(BackOff backOff) {
		this(backOff, List.of());
	}

	private DefaultDeliveryErrorHandler(BackOff backOff, List<Class<? extends Throwable>> notRetryable) {
		Assert.notNull(backOff, "BackOff must not be null");
		this.backOff = backOff;
		this.notRetryable = List.copyOf(notRetryable);
	}

	/**
	 * The default backoff: one second before the second attempt, doubling up to five minutes, with a jitter of a
	 * quarter second (scaled as the delay grows).
	 * @return a new backoff
	 * @since 1.0.0
	 */
	public static BackOff defaultBackOff() {
		return exponentialBackOff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));
	}

	/**
	 * An exponential backoff with a jitter of a quarter of the first delay.
	 * @param delay the delay before the second attempt, at least 1 ms
	 * @param multiplier the growth per attempt, at least 1
	 * @param maxDelay the longest delay, at least {@code delay}
	 * @return the backoff
	 * @since 1.0.0
	 */
	public static BackOff exponentialBackOff(Duration delay, double multiplier, Duration maxDelay) {
		return exponentialBackOff(delay, multiplier, maxDelay, (delay != null) ? delay.dividedBy(4) : Duration.ZERO);
	}

	/**
	 * An exponential backoff: {@code delay}, then each delay the previous one times {@code multiplier}, at most
	 * {@code maxDelay}, each moved by a random amount of up to {@code jitter} (scaled as the delay grows), never
	 * below the first delay nor above the longest (Spring's {@code ExponentialBackOff} with Spring Framework 7's
	 * jitter, on 6.2 too).
	 * @param delay the delay before the second attempt, at least 1 ms
	 * @param multiplier the growth per attempt, at least 1
	 * @param maxDelay the longest delay, at least {@code delay}
	 * @param jitter the random spread, zero or more
	 * @return the backoff
	 * @since 1.0.0
	 */
	public static BackOff exponentialBackOff(Duration delay, double multiplier, Duration maxDelay, Duration jitter) {
		return new JitteredExponentialBackOff(delay, multiplier, maxDelay, jitter);
	}

	/**
	 * This handler with more exception types that send a message to the dead letters without retrying.
	 * @param types the exception types, matched along the cause chain
	 * @return a new handler, with this one's backoff and types and these
	 * @since 1.0.0
	 */
	@SafeVarargs
	public final DefaultDeliveryErrorHandler withNotRetryable(Class<? extends Throwable>... types) {
		Set<Class<? extends Throwable>> all = new LinkedHashSet<>(this.notRetryable);
		for (Class<? extends Throwable> type : types) {
			Assert.notNull(type, "Exception type must not be null");
			all.add(type);
		}
		return new DefaultDeliveryErrorHandler(this.backOff, List.copyOf(all));
	}

	/**
	 * The delays between attempts.
	 * @return the backoff
	 * @since 1.0.0
	 */
	public BackOff getBackOff() {
		return this.backOff;
	}

	/**
	 * The exception types (matched along the cause chain) that send a message to the dead letters at once, besides
	 * unreadable payloads and {@link NonRetryableException}.
	 * @return the types
	 * @since 1.0.0
	 */
	public List<Class<? extends Throwable>> getNotRetryable() {
		return this.notRetryable;
	}

	@Override
	public FailureAction handle(DeliveredMessage message, Throwable failure) {
		if (isNotRetryable(failure, this.notRetryable)) {
			return FailureAction.deadLetter();
		}
		long delay = backOff(this.backOff, message.attempt());
		return (delay == BackOffExecution.STOP) ? FailureAction.deadLetter()
				: FailureAction.retryIn(Duration.ofMillis(delay));
	}

	/** The backoff before attempt {@code attempt + 1}: the backoff's {@code attempt}-th delay. */
	private static long backOff(BackOff backOff, int attempt) {
		BackOffExecution execution = backOff.start();
		long delay = 0;
		for (int i = 0; i < attempt; i++) {
			delay = execution.nextBackOff();
			if (delay == BackOffExecution.STOP) {
				break;
			}
		}
		return delay;
	}

	private static boolean isNotRetryable(Throwable failure, List<Class<? extends Throwable>> notRetryable) {
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			if (cause instanceof PayloadConversionException || cause instanceof NonRetryableException) {
				return true;
			}
			for (Class<? extends Throwable> type : notRetryable) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

	@Override
	public String toString() {
		return "DefaultDeliveryErrorHandler[backOff=" + this.backOff + ", notRetryable=" + this.notRetryable + "]";
	}

}
