package io.github.delayqueue.config;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.Topics;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;

/**
 * What every endpoint has: an id (by default its topic), a topic, an optional auto-startup flag, and settings that
 * override the container factory's default options. Each setter checks its value as {@link ListenerOptions} does,
 * so a bad one fails where it is set.
 *
 * @since 0.2.0
 */
public abstract class AbstractDelayedListenerEndpoint implements DelayedListenerEndpoint {

	private final String topic;

	private @Nullable String id;

	private @Nullable Boolean autoStartup;

	private @Nullable Integer concurrency;

	private @Nullable Integer asyncConcurrency;

	private @Nullable Integer maxAttempts;

	private @Nullable Duration visibilityTimeout;

	private @Nullable Duration handlerTimeout;

	private @Nullable Integer batchSize;

	private @Nullable Integer batchMaxMessages;

	private @Nullable Duration batchMaxWait;

	private @Nullable Boolean leaseAhead;

	private @Nullable BackOff backOff;

	private final List<Class<? extends Throwable>> notRetryable = new ArrayList<>();

	private @Nullable DeliveryErrorHandler errorHandler;

	/**
	 * Creates an endpoint.
	 * @param topic the topic: 1 to 200 characters of {@code A-Z a-z 0-9 . _ : -}; or a subscription's full name,
	 * {@link Topics#subscriptionName(String, String)}
	 */
	protected AbstractDelayedListenerEndpoint(String topic) {
		Topics.validateTopicOrSubscription(topic);
		this.topic = topic;
	}

	@Override
	public String getId() {
		return (this.id != null) ? this.id : this.topic;
	}

	/**
	 * Sets the listener's id.
	 * @param id the id, or {@code null} for the topic
	 */
	public void setId(@Nullable String id) {
		Assert.isTrue(id == null || !id.isBlank(), "Listener id must not be blank");
		this.id = id;
	}

	@Override
	public String getTopic() {
		return this.topic;
	}

	@Override
	public @Nullable Boolean getAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Sets whether the listener starts with the application.
	 * @param autoStartup the setting, or {@code null} for the container factory's
	 */
	public void setAutoStartup(@Nullable Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Sets how many handlers run at once.
	 * @param concurrency 1 to 1000
	 */
	public void setConcurrency(int concurrency) {
		checkOptionsSettable();
		ListenerOptions.builder().concurrency(concurrency);
		this.concurrency = concurrency;
	}

	/**
	 * Sets how many messages a method whose work completes later may have in flight at once.
	 * @param asyncConcurrency 1 to 10,000
	 * @since 1.0.0
	 */
	public void setAsyncConcurrency(int asyncConcurrency) {
		checkOptionsSettable();
		ListenerOptions.builder().asyncConcurrency(asyncConcurrency);
		this.asyncConcurrency = asyncConcurrency;
	}

	/**
	 * Sets the attempts before a failing message goes to the dead letters.
	 * @param maxAttempts at least 1
	 */
	public void setMaxAttempts(int maxAttempts) {
		checkOptionsSettable();
		ListenerOptions.builder().maxAttempts(maxAttempts);
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Sets the lease of a claimed message.
	 * @param visibilityTimeout at least 100 ms
	 */
	public void setVisibilityTimeout(Duration visibilityTimeout) {
		checkOptionsSettable();
		ListenerOptions.builder().visibilityTimeout(visibilityTimeout);
		this.visibilityTimeout = visibilityTimeout;
	}

	/**
	 * Sets how long a handler may run before its message is attempted again and its thread interrupted.
	 * @param handlerTimeout at least 10 ms
	 * @since 1.0.0
	 */
	public void setHandlerTimeout(Duration handlerTimeout) {
		checkOptionsSettable();
		ListenerOptions.builder().handlerTimeout(handlerTimeout);
		this.handlerTimeout = handlerTimeout;
	}

	/**
	 * Sets the most messages the consumer holds leased at once, running and claimed ahead.
	 * @param batchSize 1 to 1000, or 0 for twice the concurrency
	 */
	public void setBatchSize(int batchSize) {
		checkOptionsSettable();
		ListenerOptions.builder().batchSize(batchSize);
		this.batchSize = batchSize;
	}

	/**
	 * For a batch listener: sets the most messages one call of its handler takes (see
	 * {@link ListenerOptions#batchMaxMessages()}).
	 * @param batchMaxMessages 1 to 1000
	 * @since 1.0.0
	 */
	public void setBatchMaxMessages(int batchMaxMessages) {
		checkOptionsSettable();
		ListenerOptions.builder().batchMaxMessages(batchMaxMessages);
		this.batchMaxMessages = batchMaxMessages;
	}

	/**
	 * For a batch listener: sets how long a call waits for more messages (see
	 * {@link ListenerOptions#batchMaxWait()}).
	 * @param batchMaxWait zero to one minute
	 * @since 1.0.0
	 */
	public void setBatchMaxWait(Duration batchMaxWait) {
		checkOptionsSettable();
		ListenerOptions.builder().batchMaxWait(batchMaxWait);
		this.batchMaxWait = batchMaxWait;
	}

	/**
	 * Sets whether claims lease a message shortly before it falls due (see {@link ListenerOptions#leaseAhead()}).
	 * @param leaseAhead {@code false} to keep each message cancellable until its due time
	 * @since 1.0.0
	 */
	public void setLeaseAhead(boolean leaseAhead) {
		checkOptionsSettable();
		this.leaseAhead = leaseAhead;
	}

	/**
	 * Sets the delays between attempts of this listener's {@link DefaultDeliveryErrorHandler}: the factory's with
	 * this backoff, unless this listener has an error handler of its own. An error handler that is not a
	 * {@link DefaultDeliveryErrorHandler} owns its policy: with one, setting a backoff here fails at registration.
	 * @param backOff the backoff
	 */
	public void setBackOff(BackOff backOff) {
		checkOptionsSettable();
		Assert.notNull(backOff, "BackOff must not be null");
		this.backOff = backOff;
	}

	/**
	 * Sets the exception types that this listener's {@link DefaultDeliveryErrorHandler} sends to the dead letters
	 * without retrying, besides its own. An error handler that is not a {@link DefaultDeliveryErrorHandler} owns its
	 * policy: with one, setting types here fails at registration.
	 * @param types the types, matched along the cause chain
	 */
	public void setNotRetryable(List<Class<? extends Throwable>> types) {
		checkOptionsSettable();
		Assert.noNullElements(types, "Exception types must not be null");
		this.notRetryable.clear();
		this.notRetryable.addAll(types);
	}

	/**
	 * Sets what decides the fate of a message whose handler threw.
	 * @param errorHandler the error handler, or {@code null} for the factory's
	 */
	public void setErrorHandler(@Nullable DeliveryErrorHandler errorHandler) {
		checkOptionsSettable();
		this.errorHandler = errorHandler;
	}

	@Override
	public ListenerRegistration<?> createRegistration(ListenerOptions defaults) {
		ListenerOptions.Builder options = defaults.toBuilder();
		if (this.concurrency != null) {
			options.concurrency(this.concurrency);
		}
		if (this.asyncConcurrency != null) {
			options.asyncConcurrency(this.asyncConcurrency);
		}
		if (this.maxAttempts != null) {
			options.maxAttempts(this.maxAttempts);
		}
		if (this.visibilityTimeout != null) {
			options.visibilityTimeout(this.visibilityTimeout);
		}
		if (this.batchSize != null) {
			options.batchSize(this.batchSize);
		}
		if (this.handlerTimeout != null) {
			options.handlerTimeout(this.handlerTimeout);
		}
		if (this.leaseAhead != null) {
			options.leaseAhead(this.leaseAhead);
		}
		if (this.batchMaxMessages != null) {
			options.batchMaxMessages(this.batchMaxMessages);
		}
		if (this.batchMaxWait != null) {
			options.batchMaxWait(this.batchMaxWait);
		}
		DeliveryErrorHandler handler = (this.errorHandler != null) ? this.errorHandler : resolveErrorHandler();
		options.errorHandler(withPolicy((handler != null) ? handler : defaults.errorHandler()));
		return new ListenerRegistration<>(this.topic, getPayloadType(), createHandler(), options.build());
	}

	/** The error handler with this listener's backoff and not-retryable types, if it set any. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private DeliveryErrorHandler withPolicy(DeliveryErrorHandler handler) {
		if (this.backOff == null && this.notRetryable.isEmpty()) {
			return handler;
		}
		if (!(handler instanceof DefaultDeliveryErrorHandler base)) {
			throw new IllegalStateException("Listener of topic '" + this.topic + "' sets a backoff or not-retryable "
					+ "types, which configure a DefaultDeliveryErrorHandler, but its error handler is " + handler
					+ ", which owns its policy: configure that error handler instead");
		}
		DefaultDeliveryErrorHandler derived = (this.backOff != null)
				? new DefaultDeliveryErrorHandler(this.backOff).withNotRetryable(
						base.getNotRetryable().toArray(new Class[0]))
				: base;
		return derived.withNotRetryable(this.notRetryable.toArray(new Class[0]));
	}

	/**
	 * Called by every option setter; an endpoint whose options are fixed rejects them here.
	 * @throws IllegalStateException if this endpoint's options cannot be changed
	 */
	protected void checkOptionsSettable() {
	}

	/**
	 * An error handler found when the registration is made (a bean looked up by name, say), if none was set.
	 * @return the error handler, or {@code null} for the factory's
	 */
	protected @Nullable DeliveryErrorHandler resolveErrorHandler() {
		return null;
	}

	/**
	 * The type payloads are read as.
	 * @return the payload type
	 */
	protected abstract Type getPayloadType();

	/**
	 * The handler the container runs.
	 * @return the handler
	 */
	protected abstract DelayedMessageHandler<?> createHandler();

}
