package io.github.delayqueue.listener;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what a listener's {@link DeliveryErrorHandler} decides for a failed delivery: a retry after a delay,
 * the dead letters, or an acknowledgement (through the partition's {@link Acknowledger}); records the error text.
 */
final class FailedDeliveries {

	private static final Logger logger = LoggerFactory.getLogger(FailedDeliveries.class);

	private static final int MAX_ERROR_LENGTH = 2000;

	private final String topic;

	private final RedisMessageStore store;

	private final ListenerOptions options;

	FailedDeliveries(ListenerContext context) {
		this.topic = context.topic();
		this.store = context.store();
		this.options = context.options();
	}

	/**
	 * Records what the error handler decided for a failed delivery whose lease the caller took.
	 * @return what became of it, for the monitor
	 */
	DelayQueueMonitor.Outcome apply(Partition partition, DeliveredMessage message, Lease lease, Throwable failure,
			FailureAction action) {
		String error = describe(failure);
		try {
			switch (action.kind()) {
				case ACKNOWLEDGE -> {
					logger.info("Topic '{}': message {} failed attempt {}; its error handler dealt with it: {}",
							this.topic, message.id(), message.attempt(), error);
					partition.acknowledger().acknowledge(lease, false);
					return DelayQueueMonitor.Outcome.RECOVERED;
				}
				case DEAD_LETTER -> {
					logger.warn("Topic '{}': message {} failed attempt {} of {} and goes to the dead letters: {}",
							this.topic, message.id(), message.attempt(), this.options.maxAttempts(), error, failure);
					this.store.leases().bury(partition.name(), lease, error);
					return DelayQueueMonitor.Outcome.DEAD;
				}
				default -> {
					logger.info("Topic '{}': message {} failed attempt {} of {}, retrying in {} ms: {}", this.topic,
							message.id(), message.attempt(), this.options.maxAttempts(), action.delay().toMillis(),
							error);
					this.store.leases().retry(partition.name(), lease, action.delay().toMillis(), error);
					return DelayQueueMonitor.Outcome.RETRY;
				}
			}
		}
		catch (RuntimeException storeFailure) {
			logger.warn("Topic '{}': could not record the failure of message {}; it is redelivered when its lease "
					+ "ends", this.topic, message.id(), storeFailure);
			return DelayQueueMonitor.Outcome.RETRY;
		}
	}

	/**
	 * Asks the listener's error handler what becomes of a failed delivery (while the lease is still held and
	 * extended); if it throws or answers nothing, the default handler decides. Whoever decides, a retry asked for once
	 * the listener's max-attempts attempts have failed sends the message to the dead letters.
	 */
	FailureAction decide(DeliveredMessage message, Throwable failure) {
		return bounded(message, ask(message, failure));
	}

	private FailureAction ask(DeliveredMessage message, Throwable failure) {
		DeliveryErrorHandler handler = this.options.errorHandler();
		try {
			FailureAction action = handler.handle(message, failure);
			if (action != null) {
				return action;
			}
			logger.warn("Topic '{}': error handler {} returned no action for message {}; using the default",
					this.topic, handler, message.id());
		}
		catch (RuntimeException | Error ex) {
			logger.warn("Topic '{}': error handler {} failed for message {}; using the default", this.topic,
					handler, message.id(), ex);
		}
		return DefaultDeliveryErrorHandler.INSTANCE.handle(message, failure);
	}

	private FailureAction bounded(DeliveredMessage message, FailureAction action) {
		if (action.kind() == FailureAction.Kind.RETRY && message.attempt() >= this.options.maxAttempts()) {
			return FailureAction.deadLetter();
		}
		return action;
	}

	static String describe(Throwable ex) {
		String text = ex.getClass().getName() + ((ex.getMessage() != null) ? ": " + ex.getMessage() : "");
		return (text.length() > MAX_ERROR_LENGTH) ? text.substring(0, MAX_ERROR_LENGTH) : text;
	}

}
