package io.github.delayqueue.test;

import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpoint;
import io.github.delayqueue.listener.ContainerProperties;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.HandlerTimeoutException;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.util.Assert;

/**
 * Records what the listeners of the containers a factory makes receive: each call's message, payload, what it threw,
 * and what became of the message. Make a factory record with {@link #recording(DelayedListenerContainerFactory)}
 * (the test auto-configuration does it for every container factory bean); its containers then run their listeners
 * through the recorder and report to it beside their own monitor, which keeps working. Nothing changes in what the
 * listeners do or in how the queue treats their messages: a listener whose work completes later stays asynchronous (no
 * thread waits for its work, its in-flight bound applies), and its call is recorded once the work has completed.
 * <p>
 * A message that cannot be read as the listener's payload type never reaches the listener, so it is not recorded:
 * it is among the topic's dead letters.
 *
 * @since 1.0.0
 */
public final class ListenerRecorder {

	/**
	 * The calls this thread's container has not reported yet, in the order it reports them: it reports on the thread
	 * that ran the listener (one call, or each message of a batch listener's call).
	 */
	private final ThreadLocal<Deque<RecordedCall>> unreported = ThreadLocal.withInitial(ArrayDeque::new);

	private final List<RecordedCall> calls = new ArrayList<>();

	/**
	 * Creates a recorder that has recorded nothing.
	 */
	public ListenerRecorder() {
	}

	/**
	 * The calls of every topic's listeners that have finished, in the order they started.
	 * @return the calls
	 */
	public List<ReceivedMessage> received() {
		synchronized (this.calls) {
			return this.calls.stream().filter(RecordedCall::hasFinished).map(RecordedCall::received).toList();
		}
	}

	/**
	 * The calls of a topic's listeners that have finished, in the order they started.
	 * @param topic the topic
	 * @return the calls
	 */
	public List<ReceivedMessage> received(String topic) {
		Assert.notNull(topic, "Topic must not be null");
		synchronized (this.calls) {
			return this.calls.stream()
				.filter((call) -> call.topic().equals(topic) && call.hasFinished())
				.map(RecordedCall::received)
				.toList();
		}
	}

	/**
	 * The payloads a topic's listeners received, in the order the calls started (a redelivered message once per
	 * call).
	 * @param <T> the type
	 * @param topic the topic
	 * @param type the payload type the listeners received (or a supertype)
	 * @return the payloads
	 * @throws ClassCastException if one is of another type
	 */
	public <T> List<T> payloads(String topic, Class<T> type) {
		return received(topic).stream().map((call) -> call.payload(type)).toList();
	}

	/**
	 * Forgets every call recorded so far (calls still running are recorded no more).
	 */
	public void clear() {
		synchronized (this.calls) {
			this.calls.clear();
		}
	}

	/**
	 * The calls of a topic's listeners that are still running, or have finished without their outcome reported
	 * yet: what a topic needs to be idle from its listeners' side.
	 * @param topic the topic
	 * @return descriptions of the calls, empty if none
	 */
	List<String> unsettled(String topic) {
		synchronized (this.calls) {
			return this.calls.stream()
				.filter((call) -> call.topic().equals(topic) && !call.isSettled())
				.map(RecordedCall::toString)
				.toList();
		}
	}

	/**
	 * A factory like the given one whose containers record what their listeners receive. A
	 * {@code DefaultDelayedListenerContainerFactory} (any class that can be subclassed) stays an instance of its
	 * class, so the bean keeps its type; other factories become a proxy of the interface. Each container the factory
	 * makes runs its listener through this recorder, and its monitor reports to this recorder too (set when the
	 * container is made, so a monitor set on the container later replaces the recording one).
	 * @param factory the factory
	 * @return the recording factory (the factory itself if it records for this recorder already)
	 */
	public DelayedListenerContainerFactory recording(DelayedListenerContainerFactory factory) {
		Assert.notNull(factory, "Container factory must not be null");
		if (recordsFor(factory)) {
			return factory;
		}
		ProxyFactory proxy = new ProxyFactory(factory);
		Class<?> type = factory.getClass();
		proxy.setProxyTargetClass(!Modifier.isFinal(type.getModifiers()) && !type.isHidden() && !type.isSynthetic());
		proxy.addAdvice(new RecordingAdvice(this));
		return (DelayedListenerContainerFactory) proxy.getProxy(type.getClassLoader());
	}

	private boolean recordsFor(DelayedListenerContainerFactory factory) {
		return factory instanceof Advised advised && Arrays.stream(advised.getAdvisors())
			.anyMatch((advisor) -> advisor.getAdvice() instanceof RecordingAdvice advice && advice.recorder() == this);
	}

	/** A listener was called: its call is recorded, running. */
	RecordedCall started(DeliveredMessage message, @Nullable Object payload, boolean async) {
		RecordedCall call = new RecordedCall(message, payload, async);
		synchronized (this.calls) {
			this.calls.add(call);
		}
		return call;
	}

	/** A call finished on this thread (a listener returned or threw): its container reports it here next. */
	void finishedOnThisThread(RecordedCall call, @Nullable Throwable failure) {
		if (call.finished(failure)) {
			this.unreported.get().addLast(call);
		}
	}

	/**
	 * A container reported an outcome: of the call that finished on this thread (a blocking listener's, or an
	 * asynchronous one that failed before its work existed); of a call whose handler timed out, named in the
	 * exception; or of an asynchronous call whose work completed, matched by what it failed with (a success by none).
	 */
	private void reported(String topic, DelayQueueMonitor.Outcome outcome, @Nullable Throwable exception) {
		if (exception != null && !(exception instanceof HandlerTimeoutException)
				&& settleAsync(topic, outcome, exception)) {
			return;
		}
		Deque<RecordedCall> waiting = this.unreported.get();
		RecordedCall call;
		while ((call = waiting.pollFirst()) != null) {
			// settled already: an asynchronous call that failed before its work existed, matched above
			if (!call.isSettled()) {
				if (call.topic().equals(topic) && (exception != null) == call.hasFailed()) {
					call.report(outcome, exception);
					return;
				}
				call.abandon();
			}
		}
		if (exception instanceof HandlerTimeoutException timeout) {
			// reported by the container's timer while the listener still runs (it is being interrupted), or as an
			// asynchronous listener's work is cancelled
			synchronized (this.calls) {
				this.calls.stream()
					.filter((running) -> running.topic().equals(topic)
							&& (running.isRunning() || (running.isAsync() && !running.isSettled()))
							&& String.valueOf(timeout.getMessage()).contains("'" + running.id() + "'"))
					.findFirst()
					.ifPresent((running) -> running.report(outcome, timeout));
			}
			return;
		}
		if (exception == null) {
			settleAsync(topic, outcome, null);
		}
	}

	/** Reports the outcome of the first asynchronous call of the topic that completed as reported and awaits it. */
	private boolean settleAsync(String topic, DelayQueueMonitor.Outcome outcome, @Nullable Throwable exception) {
		synchronized (this.calls) {
			for (RecordedCall call : this.calls) {
				if (call.topic().equals(topic) && call.awaitsReport(exception)) {
					call.report(outcome, exception);
					return true;
				}
			}
		}
		return false;
	}

	/** Makes a factory's containers record: their endpoints' handlers and their monitors go through the recorder. */
	private record RecordingAdvice(ListenerRecorder recorder) implements MethodInterceptor {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			Object[] arguments = invocation.getArguments();
			if (!invocation.getMethod().getName().equals("createListenerContainer") || arguments.length != 1
					|| !(arguments[0] instanceof DelayedListenerEndpoint endpoint)) {
				return invocation.proceed();
			}
			arguments[0] = new RecordingEndpoint(this.recorder, endpoint);
			Object container = invocation.proceed();
			if (container instanceof DelayedListenerContainer made) {
				ContainerProperties properties = made.getContainerProperties();
				properties.setMonitor(this.recorder.new RecordingMonitor(properties.getMonitor()));
			}
			return container;
		}

	}

	/**
	 * A container's monitor that reports what became of each call to the recorder, and everything to the monitor
	 * it replaces. Every method of {@link DelayQueueMonitor} is passed on.
	 */
	final class RecordingMonitor implements DelayQueueMonitor {

		private final DelayQueueMonitor delegate;

		RecordingMonitor(DelayQueueMonitor delegate) {
			this.delegate = delegate;
		}

		DelayQueueMonitor delegate() {
			return this.delegate;
		}

		@Override
		public void scheduled(String topic, int count) {
			this.delegate.scheduled(topic, count);
		}

		@Override
		public void afterCommitFailed(String topic, String operation, int count) {
			this.delegate.afterCommitFailed(topic, operation, count);
		}

		@Override
		public void cancelled(String topic) {
			this.delegate.cancelled(topic);
		}

		@Override
		public void dispatched(String topic, long latenessMillis) {
			newDelivery();
			this.delegate.dispatched(topic, latenessMillis);
		}

		@Override
		public void dispatched(String topic, @Nullable String group, long latenessMillis) {
			newDelivery();
			this.delegate.dispatched(topic, group, latenessMillis);
		}

		/** A new delivery on this thread: a call left unreported before it never will be. */
		private void newDelivery() {
			Deque<RecordedCall> stale = ListenerRecorder.this.unreported.get();
			RecordedCall call;
			while ((call = stale.pollFirst()) != null) {
				call.abandon();
			}
		}

		@Override
		public void expired(String topic, int count) {
			this.delegate.expired(topic, count);
		}

		@Override
		public void pastDeadline(String topic, int count) {
			this.delegate.pastDeadline(topic, count);
		}

		@Override
		public void handlerTimedOut(String topic) {
			this.delegate.handlerTimedOut(topic);
		}

		@Override
		public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
			this.delegate.handled(topic, outcome, durationNanos, exception);
		}

		@Override
		public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception,
				boolean observed) {
			reported(topic, outcome, exception);
			this.delegate.handled(topic, outcome, durationNanos, exception, observed);
		}

		@Override
		public void handled(String topic, @Nullable String group, Outcome outcome, long durationNanos,
				@Nullable Throwable exception, boolean observed) {
			reported(topic, outcome, exception);
			this.delegate.handled(topic, group, outcome, durationNanos, exception, observed);
		}

		@Override
		public String toString() {
			return "RecordingMonitor[" + this.delegate + "]";
		}

	}

}
