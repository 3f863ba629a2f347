package io.github.delayqueue.test;

import io.github.delayqueue.config.DelayedListenerEndpoint;
import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import io.github.delayqueue.listener.DelayedBatchHandler;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import org.jspecify.annotations.Nullable;

/**
 * An endpoint whose registration runs its handler through a {@link ListenerRecorder}: a blocking handler through a
 * {@link RecordingHandler}, one whose work completes later through a {@link RecordingAsyncHandler}, which stays
 * asynchronous.
 */
final class RecordingEndpoint implements DelayedListenerEndpoint {

	private final ListenerRecorder recorder;

	private final DelayedListenerEndpoint delegate;

	RecordingEndpoint(ListenerRecorder recorder, DelayedListenerEndpoint delegate) {
		this.recorder = recorder;
		this.delegate = delegate;
	}

	@Override
	public String getId() {
		return this.delegate.getId();
	}

	@Override
	public String getTopic() {
		return this.delegate.getTopic();
	}

	@Override
	public @Nullable Boolean getAutoStartup() {
		return this.delegate.getAutoStartup();
	}

	@Override
	public ListenerRegistration<?> createRegistration(ListenerOptions defaults) {
		return recording(this.delegate.createRegistration(defaults));
	}

	private <T> ListenerRegistration<T> recording(ListenerRegistration<T> registration) {
		DelayedMessageHandler<T> handler = registration.handler();
		DelayedMessageHandler<T> recording;
		if (handler instanceof DelayedBatchHandler<T> batch) {
			// each message of a call is recorded as the container settles it
			recording = RecordingBatchHandler.of(this.recorder, batch);
		}
		else if (handler instanceof AsyncDelayedMessageHandler<T> async) {
			recording = new RecordingAsyncHandler<>(this.recorder, async);
		}
		else {
			recording = new RecordingHandler<>(this.recorder, handler);
		}
		return new ListenerRegistration<>(registration.topic(), registration.payloadType(), recording,
				registration.options());
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
