package io.github.delayqueue.test;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DelayedMessageHandler;

/**
 * Runs a blocking listener and records the call with a {@link ListenerRecorder}: the container reports its outcome
 * on the thread that ran it, right after it returned.
 *
 * @param <T> the payload type
 */
final class RecordingHandler<T> implements DelayedMessageHandler<T> {

	private final ListenerRecorder recorder;

	private final DelayedMessageHandler<T> delegate;

	RecordingHandler(ListenerRecorder recorder, DelayedMessageHandler<T> delegate) {
		this.recorder = recorder;
		this.delegate = delegate;
	}

	@Override
	public void handle(T payload, DeliveredMessage message) throws Exception {
		RecordedCall call = this.recorder.started(message, payload, false);
		Throwable failure = null;
		try {
			this.delegate.handle(payload, message);
		}
		catch (Exception | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			this.recorder.finishedOnThisThread(call, failure);
		}
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
