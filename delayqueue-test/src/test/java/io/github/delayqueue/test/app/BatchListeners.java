package io.github.delayqueue.test.app;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.listener.BatchListenerFailedException;

/**
 * Batch listeners of the kit's tests: one that fails the first time it meets the message {@code locked}, naming it,
 * and one whose work completes later.
 */
public class BatchListeners {

	/** A blocking batch listener naming the message {@code locked} as failed at its first attempt. */
	public static final String CLOSING = "batch-closing";

	/** A batch listener whose work completes later. */
	public static final String ASYNC = "batch-async";

	private final AtomicInteger largestCall = new AtomicInteger();

	/**
	 * The most messages one call of the {@link #CLOSING} listener took.
	 * @return the size of its largest call
	 */
	public int largestCall() {
		return this.largestCall.get();
	}

	@DelayedListener(topic = CLOSING, batch = "true", batchMaxWait = "500ms", concurrency = "1")
	void onTimeouts(List<String> orders, List<DeliveredMessage> messages) {
		this.largestCall.accumulateAndGet(messages.size(), Math::max);
		for (int i = 0; i < messages.size(); i++) {
			DeliveredMessage message = messages.get(i);
			if (message.id().equals("locked") && message.attempt() == 1) {
				throw new BatchListenerFailedException("order locked", new IllegalStateException("locked"), i);
			}
		}
	}

	@DelayedListener(topic = ASYNC, batch = "true", batchMaxWait = "500ms")
	CompletableFuture<Void> onAsync(List<String> payloads) {
		return CompletableFuture.runAsync(() -> {
		});
	}

}
