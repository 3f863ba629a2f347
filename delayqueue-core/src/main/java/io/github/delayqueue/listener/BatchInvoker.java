package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.StoredMessage;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a batch listener's handler ({@link DelayedBatchHandler}) for several deliveries at once: reads each payload as
 * the listener's type (a message that cannot be read is left out, to fail on its own), builds each
 * {@link DeliveredMessage}, tells the monitor when each message's handling starts, and calls the handler once. Batch
 * calls are not observed (an observation belongs to one message's trace); the monitor times each message.
 */
final class BatchInvoker {

	private static final Logger logger = LoggerFactory.getLogger(BatchInvoker.class);

	private final ListenerRegistration<Object> registration;

	private final DelayedBatchHandler<Object> handler;

	private final PayloadConverter converter;

	private final DelayQueueMonitor monitor;

	private final ListenerInvoker single;

	BatchInvoker(ListenerRegistration<Object> registration, DelayedBatchHandler<Object> handler,
			PayloadConverter converter, DelayQueueMonitor monitor, ListenerInvoker single) {
		this.registration = registration;
		this.handler = handler;
		this.converter = converter;
		this.monitor = monitor;
		this.single = single;
	}

	/**
	 * Reads the payloads of a batch, telling the monitor that each message's handling starts.
	 * @param deliveries the deliveries, in claim order
	 * @return the readable ones with their payloads, and the unreadable ones with why
	 */
	Batch read(List<Delivery> deliveries) {
		String topic = this.registration.topic();
		List<Delivery> readable = new ArrayList<>(deliveries.size());
		List<Object> payloads = new ArrayList<>(deliveries.size());
		List<DeliveredMessage> messages = new ArrayList<>(deliveries.size());
		List<Unreadable> unreadable = new ArrayList<>(0);
		for (Delivery delivery : deliveries) {
			ClaimedMessage message = delivery.message();
			try {
				this.monitor.dispatched(topic, message.message().group(),
						ListenerInvoker.lateMillis(message.dueAt(), delivery));
			}
			catch (RuntimeException ex) {
				logger.warn("Topic '{}': the monitor failed; the message is handled regardless", topic, ex);
			}
			DeliveredMessage delivered = this.single.deliveredMessage(delivery);
			try {
				StoredMessage stored = message.message();
				if (!stored.isReadable()) {
					String reason = stored.malformation();
					throw new UnreadableMessageException((reason != null) ? reason : "unknown format");
				}
				payloads.add(this.converter.read(stored.payload(), this.registration.payloadType()));
				readable.add(delivery);
				messages.add(delivered);
			}
			catch (Throwable ex) {
				unreadable.add(new Unreadable(delivery, delivered, ListenerInvoker.unwrap(ex)));
			}
		}
		return new Batch(List.copyOf(readable), payloads, List.copyOf(messages), unreadable);
	}

	/**
	 * Calls the handler with the readable messages of a batch.
	 * @param batch the batch, with at least one readable message
	 * @return what the call threw, or the work of a handler that completes later
	 */
	Call call(Batch batch) {
		List<Object> payloads = Collections.unmodifiableList(batch.payloads());
		try {
			if (this.handler instanceof AsyncDelayedBatchHandler<Object> async) {
				CompletionStage<?> work = async.handleBatchAsync(payloads, batch.messages());
				if (work == null) {
					throw new IllegalStateException("Listener " + this.handler + " returned null instead of a "
							+ "CompletionStage for a batch of " + payloads.size() + " message(s)");
				}
				return new Call(null, work.toCompletableFuture());
			}
			this.handler.handleBatch(payloads, batch.messages());
			return new Call(null, null);
		}
		catch (Throwable ex) {
			return new Call(ListenerInvoker.unwrap(ex), null);
		}
	}

	/**
	 * The messages of a batch whose payloads could be read, and those that could not.
	 * @param readable the deliveries to call the handler with
	 * @param payloads their payloads, in the same order
	 * @param messages their messages as the handler sees them, in the same order
	 * @param unreadable the deliveries that cannot be read
	 */
	record Batch(List<Delivery> readable, List<Object> payloads, List<DeliveredMessage> messages,
			List<Unreadable> unreadable) {
	}

	/**
	 * A delivery whose payload cannot be read as the listener's type.
	 * @param delivery the delivery
	 * @param message the message as the handler would have seen it
	 * @param failure why it cannot be read
	 */
	record Unreadable(Delivery delivery, DeliveredMessage message, Throwable failure) {
	}

	/**
	 * What a call of the handler came to.
	 * @param failure what it threw, or {@code null}
	 * @param pending the work of a handler that completes later, or {@code null}
	 */
	record Call(@Nullable Throwable failure, @Nullable CompletableFuture<?> pending) {
	}

}
