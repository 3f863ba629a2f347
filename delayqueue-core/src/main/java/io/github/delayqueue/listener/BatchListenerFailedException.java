package io.github.delayqueue.listener;

import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Thrown by a batch listener ({@link DelayedBatchHandler}) to name the message of its batch that failed: the messages
 * before it are acknowledged; it is retried with its attempt counted (or dead-lettered) as the listener's error
 * handler decides for the exception's cause; the messages after it go back to the queue unhandled, their attempt not
 * counted, and are delivered again at once. The message is named by its position in the batch or by its
 * {@link DeliveredMessage}; one that names no message of the batch fails the whole batch.
 *
 * @since 1.0.0
 */
public class BatchListenerFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final int index;

	private final @Nullable String messageId;

	/**
	 * Names the failed message by its position in the batch.
	 * @param message what failed
	 * @param cause why (the error handler decides on it), or {@code null}
	 * @param index the position of the failed message in the batch, from 0
	 */
	public BatchListenerFailedException(String message, @Nullable Throwable cause, int index) {
		super(message, cause);
		Assert.isTrue(index >= 0, () -> "Index must not be negative, but was " + index);
		this.index = index;
		this.messageId = null;
	}

	/**
	 * Names the failed message.
	 * @param message what failed
	 * @param cause why (the error handler decides on it), or {@code null}
	 * @param failed the message that failed, as the batch handler received it
	 */
	public BatchListenerFailedException(String message, @Nullable Throwable cause, DeliveredMessage failed) {
		super(message, cause);
		Assert.notNull(failed, "Failed message must not be null");
		this.index = -1;
		this.messageId = failed.id();
	}

	/**
	 * The position of the failed message in the batch.
	 * @return the index, or {@code -1} if the message was named by its {@link DeliveredMessage}
	 */
	public int getIndex() {
		return this.index;
	}

	/**
	 * The position of the message this names in a batch, as the container finds it: by id if it was named by its
	 * {@link DeliveredMessage}, else by index.
	 * @param batch the batch's messages, in the order the handler received them
	 * @return the index, or {@code -1} if this names none of the batch's messages (the whole batch then fails)
	 */
	public int indexIn(List<DeliveredMessage> batch) {
		if (this.messageId != null) {
			for (int i = 0; i < batch.size(); i++) {
				if (batch.get(i).id().equals(this.messageId)) {
					return i;
				}
			}
			return -1;
		}
		return (this.index < batch.size()) ? this.index : -1;
	}

	/**
	 * The id of the failed message.
	 * @return the id, or {@code null} if the message was named by its position
	 */
	public @Nullable String getMessageId() {
		return this.messageId;
	}

}
