package io.github.delayqueue.listener;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How a topic's messages are consumed: how many at once, how long a lease lasts, how many attempts at most, and the
 * {@link DeliveryErrorHandler} that decides what becomes of a failure (it owns the backoff and the not-retryable
 * types: see {@link DefaultDeliveryErrorHandler}).
 *
 * @since 0.1.0
 */
public final class ListenerOptions {

	/** The default number of handlers running at once. */
	public static final int DEFAULT_CONCURRENCY = 4;

	/**
	 * The default number of messages a listener whose handler completes later (it returns a
	 * {@code CompletableFuture} or a {@code Mono}) has in flight at once.
	 * @since 1.0.0
	 */
	public static final int DEFAULT_ASYNC_CONCURRENCY = 256;

	/** The default lease of a claimed message. */
	public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);

	/** The default number of attempts before a message goes to the dead letters. */
	public static final int DEFAULT_MAX_ATTEMPTS = 10;

	/**
	 * The default batch size, {@code 0}: it adapts, from twice the concurrency (see {@link #batchSize()}).
	 */
	public static final int DEFAULT_BATCH_SIZE = 0;

	/**
	 * The default most messages a batch listener ({@link DelayedBatchHandler}) is called with at once.
	 * @since 1.0.0
	 */
	public static final int DEFAULT_BATCH_MAX_MESSAGES = 100;

	private static final ListenerOptions DEFAULTS = builder().build();

	private final int concurrency;

	private final int asyncConcurrency;

	private final Duration visibilityTimeout;

	private final int maxAttempts;

	private final int batchSize;

	/** The error handler set, if any. */
	private final @Nullable DeliveryErrorHandler errorHandler;

	private final @Nullable Duration handlerTimeout;

	private final boolean leaseAhead;

	private final int batchMaxMessages;

	private final Duration batchMaxWait;

	private ListenerOptions(Builder builder) {
		this.concurrency = builder.concurrency;
		this.asyncConcurrency = builder.asyncConcurrency;
		this.visibilityTimeout = builder.visibilityTimeout;
		this.maxAttempts = builder.maxAttempts;
		this.batchSize = builder.batchSize;
		this.errorHandler = builder.errorHandler;
		this.handlerTimeout = builder.handlerTimeout;
		this.leaseAhead = builder.leaseAhead;
		this.batchMaxMessages = builder.batchMaxMessages;
		this.batchMaxWait = builder.batchMaxWait;
	}

	/**
	 * The default options.
	 * @return the defaults
	 */
	public static ListenerOptions defaults() {
		return DEFAULTS;
	}

	/**
	 * A builder starting from the defaults.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Handlers running at once for the topic.
	 * @return the concurrency
	 */
	public int concurrency() {
		return this.concurrency;
	}

	/**
	 * The most messages in flight at once for a listener whose handler completes later (it returns a
	 * {@code CompletableFuture} or a {@code Mono}): its handler threads start no more until one completes. A
	 * blocking handler's messages are bounded by the {@linkplain #concurrency() concurrency} instead.
	 * @return the bound
	 * @since 1.0.0
	 */
	public int asyncConcurrency() {
		return this.asyncConcurrency;
	}

	/**
	 * How long a claimed message stays leased without a lease extension; a consumer that stops extending (it
	 * crashed, or lost Redis) loses the message to another consumer after this.
	 * @return the lease
	 */
	public Duration visibilityTimeout() {
		return this.visibilityTimeout;
	}

	/**
	 * Attempts before a failing message goes to the dead letters.
	 * @return the maximum attempts
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Most messages a consumer holds leased at once, running and waiting for a handler thread (its prefetch): it
	 * claims them in batches, a claim for the room left once half the batch is used, so a busy topic costs a small
	 * fraction of a round trip per message. A larger batch keeps fast handlers busy over a slow network; a smaller
	 * one leaves more messages to other instances. Unless set, twice the concurrency, and the consumer lets it grow
	 * (up to 128) while claims rather than handlers limit the throughput.
	 * @return the batch size, or where unset the one the consumer starts from
	 */
	public int batchSize() {
		return (this.batchSize > 0) ? this.batchSize : Math.min(1000, 2 * this.concurrency);
	}

	/** Whether the batch size was set (else it adapts, starting from {@link #batchSize()}). */
	boolean isBatchSizeSet() {
		return this.batchSize > 0;
	}

	/**
	 * What decides the fate of a message whose handler threw.
	 * @return the error handler set, else {@link DefaultDeliveryErrorHandler#INSTANCE}
	 */
	public DeliveryErrorHandler errorHandler() {
		return (this.errorHandler != null) ? this.errorHandler : DefaultDeliveryErrorHandler.INSTANCE;
	}

	/**
	 * How long a handler may run before its lease is released for another attempt (the attempt counts) and its
	 * thread interrupted; {@code null} for no limit (the lease is extended while the handler runs).
	 * @return the timeout or {@code null}
	 * @since 1.0.0
	 */
	public @Nullable Duration handlerTimeout() {
		return this.handlerTimeout;
	}

	/**
	 * Whether claims lease a message shortly before it falls due (their lookahead: two claim round trips, 1 to 5 ms),
	 * so that its handler thread holds it and starts it at its due time. Then a cancel, reschedule or replace in that
	 * last window answers "in flight" and the message is delivered. Without it, a message stays waiting, and can be
	 * cancelled, until its due time, and starts a claim's round trip or more after it. Topics with controls (pause,
	 * rate limit, cap) lease nothing ahead either way.
	 * @return whether claims lease ahead; {@code true} unless set
	 * @since 1.0.0
	 */
	public boolean leaseAhead() {
		return this.leaseAhead;
	}

	/**
	 * For a batch listener ({@link DelayedBatchHandler}): the most messages one call of its handler takes. A call
	 * takes the messages that are due and leased to the consumer when a handler thread is free, up to this many.
	 * Unless {@link #batchSize()} is set, the consumer of a batch listener leases up to twice its concurrency times
	 * this, counted up to 128: at most 256 messages at once (a claim of that many holds Redis a few milliseconds).
	 * @return 1 to 1000; {@value #DEFAULT_BATCH_MAX_MESSAGES} unless set
	 * @since 1.0.0
	 */
	public int batchMaxMessages() {
		return this.batchMaxMessages;
	}

	/**
	 * For a batch listener: how long a call waits, once its first message is due, for more to arrive when fewer than
	 * {@link #batchMaxMessages()} are ready. Every message in the call starts that much later at most. A call stops
	 * waiting once it holds half of what the consumer leases (no claim could bring more) or a suspect arrives.
	 * @return the wait; zero (take what is ready) unless set
	 * @since 1.0.0
	 */
	public Duration batchMaxWait() {
		return this.batchMaxWait;
	}

	/**
	 * A builder starting from these options.
	 * @return a builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.concurrency = this.concurrency;
		builder.asyncConcurrency = this.asyncConcurrency;
		builder.visibilityTimeout = this.visibilityTimeout;
		builder.maxAttempts = this.maxAttempts;
		builder.batchSize = this.batchSize;
		builder.errorHandler = this.errorHandler;
		builder.handlerTimeout = this.handlerTimeout;
		builder.leaseAhead = this.leaseAhead;
		builder.batchMaxMessages = this.batchMaxMessages;
		builder.batchMaxWait = this.batchMaxWait;
		return builder;
	}

	@Override
	public String toString() {
		return "ListenerOptions[concurrency=" + this.concurrency + ", asyncConcurrency=" + this.asyncConcurrency
				+ ", visibilityTimeout=" + this.visibilityTimeout
				+ ", maxAttempts=" + this.maxAttempts + ", batchSize=" + this.batchSize
				+ ", handlerTimeout=" + this.handlerTimeout + ", leaseAhead=" + this.leaseAhead + ", batchMaxMessages="
				+ this.batchMaxMessages + ", batchMaxWait=" + this.batchMaxWait + ", errorHandler=" + errorHandler()
				+ "]";
	}

	/** Builds {@link ListenerOptions}; each setter validates its value. */
	public static final class Builder {

		private int concurrency = DEFAULT_CONCURRENCY;

		private int asyncConcurrency = DEFAULT_ASYNC_CONCURRENCY;

		private Duration visibilityTimeout = DEFAULT_VISIBILITY_TIMEOUT;

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

		private int batchSize = DEFAULT_BATCH_SIZE;

		private int batchMaxMessages = DEFAULT_BATCH_MAX_MESSAGES;

		private Duration batchMaxWait = Duration.ZERO;

		private @Nullable DeliveryErrorHandler errorHandler;

		private @Nullable Duration handlerTimeout;

		private boolean leaseAhead = true;

		private Builder() {
		}

		/**
		 * Sets whether claims lease a message shortly before it falls due (see {@link ListenerOptions#leaseAhead()}).
		 * @param leaseAhead {@code false} to keep each message cancellable until its due time
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder leaseAhead(boolean leaseAhead) {
			this.leaseAhead = leaseAhead;
			return this;
		}

		/**
		 * Sets how long a handler may run: beyond it, its lease is released for another attempt (the attempt counts,
		 * with the retry back-off, or the message goes to the dead letters when its attempts are used up), its thread
		 * is interrupted, and {@code delayqueue.handler.timeouts} counts it. Without one, leases are extended while a
		 * handler runs, however long.
		 * @param handlerTimeout at least 10 ms, or {@code null} for none
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder handlerTimeout(@Nullable Duration handlerTimeout) {
			Assert.isTrue(handlerTimeout == null || handlerTimeout.toMillis() >= 10,
					() -> "Handler timeout must be at least 10ms, but was " + handlerTimeout);
			this.handlerTimeout = handlerTimeout;
			return this;
		}

		/**
		 * Sets how many handlers run at once.
		 * @param concurrency 1 to 1000
		 * @return this builder
		 */
		public Builder concurrency(int concurrency) {
			Assert.isTrue(concurrency >= 1 && concurrency <= 1000,
					() -> "Concurrency must be between 1 and 1000, but was " + concurrency);
			this.concurrency = concurrency;
			return this;
		}

		/**
		 * Sets how many messages a listener whose handler completes later may have in flight at once.
		 * @param asyncConcurrency 1 to 10,000
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder asyncConcurrency(int asyncConcurrency) {
			Assert.isTrue(asyncConcurrency >= 1 && asyncConcurrency <= 10_000,
					() -> "Async concurrency must be between 1 and 10000, but was " + asyncConcurrency);
			this.asyncConcurrency = asyncConcurrency;
			return this;
		}

		/**
		 * Sets the lease of a claimed message.
		 * @param visibilityTimeout at least 100 ms
		 * @return this builder
		 */
		public Builder visibilityTimeout(Duration visibilityTimeout) {
			Assert.isTrue(visibilityTimeout != null && visibilityTimeout.toMillis() >= 100,
					() -> "Visibility timeout must be at least 100ms, but was " + visibilityTimeout);
			this.visibilityTimeout = visibilityTimeout;
			return this;
		}

		/**
		 * Sets the attempts before a failing message goes to the dead letters.
		 * @param maxAttempts at least 1
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			Assert.isTrue(maxAttempts >= 1, () -> "Max attempts must be at least 1, but was " + maxAttempts);
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Sets the most messages a consumer holds leased at once (see {@link ListenerOptions#batchSize()}).
		 * @param batchSize 1 to 1000, or 0 for twice the concurrency
		 * @return this builder
		 */
		public Builder batchSize(int batchSize) {
			Assert.isTrue(batchSize >= 0 && batchSize <= 1000,
					() -> "Batch size must be between 1 and 1000 (or 0: twice the concurrency), but was " + batchSize);
			this.batchSize = batchSize;
			return this;
		}

		/**
		 * Sets the most messages one call of a batch listener takes (see {@link ListenerOptions#batchMaxMessages()}).
		 * @param batchMaxMessages 1 to 1000
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder batchMaxMessages(int batchMaxMessages) {
			Assert.isTrue(batchMaxMessages >= 1 && batchMaxMessages <= 1000,
					() -> "Batch max messages must be between 1 and 1000, but was " + batchMaxMessages);
			this.batchMaxMessages = batchMaxMessages;
			return this;
		}

		/**
		 * Sets how long a call of a batch listener waits for more messages (see
		 * {@link ListenerOptions#batchMaxWait()}).
		 * @param batchMaxWait zero to one minute
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder batchMaxWait(Duration batchMaxWait) {
			Assert.notNull(batchMaxWait, "Batch max wait must not be null");
			Assert.isTrue(!batchMaxWait.isNegative() && batchMaxWait.compareTo(Duration.ofMinutes(1)) <= 0,
					() -> "Batch max wait must be between 0 and 1 minute, but was " + batchMaxWait);
			this.batchMaxWait = batchMaxWait;
			return this;
		}

		/**
		 * Sets what decides the fate of a message whose handler threw (with its own backoff and not-retryable
		 * types); the listener's max-attempts still bounds its retries.
		 * @param errorHandler the error handler, such as a {@link DefaultDeliveryErrorHandler}
		 * @return this builder
		 */
		public Builder errorHandler(DeliveryErrorHandler errorHandler) {
			Assert.notNull(errorHandler, "DeliveryErrorHandler must not be null");
			this.errorHandler = errorHandler;
			return this;
		}

		/**
		 * Builds the options.
		 * @return the options
		 */
		public ListenerOptions build() {
			return new ListenerOptions(this);
		}

	}

}
