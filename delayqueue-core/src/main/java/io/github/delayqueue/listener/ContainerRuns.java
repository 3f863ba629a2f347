package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The runs of one container: the current one (a {@link ListenerConsumer} with its {@link ContainerThreads}, new on
 * every start) and those stopped and still finishing their handlers. Stopping detaches the current run under the
 * lock, so that a start right after it begins a new run at once; the detached run then drains, on the caller's
 * thread or in the background.
 */
final class ContainerRuns {

	private final String topic;

	private final Object lock = new Object();

	private volatile @Nullable Run current;

	private final Set<Run> draining = ConcurrentHashMap.newKeySet();

	ContainerRuns(String topic) {
		this.topic = topic;
	}

	/** Starts a run unless one is current; if the consumer cannot start, nothing stays half-started. */
	void start(Supplier<ListenerConsumer> consumers) {
		synchronized (this.lock) {
			if (this.current != null) {
				return;
			}
			ContainerThreads threads = new ContainerThreads(this.topic);
			ListenerConsumer consumer = consumers.get();
			try {
				consumer.start(threads.io(), threads.timer());
			}
			catch (RuntimeException ex) {
				threads.shutdownNow();
				throw ex;
			}
			this.current = new Run(consumer, threads);
		}
	}

	/**
	 * Stops the current run from claiming and starting handlers; the caller then drains it.
	 * @return the run, or {@code null} if none was current
	 */
	@Nullable Run detach() {
		synchronized (this.lock) {
			Run run = this.current;
			if (run == null) {
				return null;
			}
			this.current = null;
			this.draining.add(run);
			run.consumer().beginStop();
			return run;
		}
	}

	/** Gives a detached run's handlers until the timeout, hands back what is unfinished, and ends its threads. */
	void drain(Run run, Duration timeout) {
		try {
			run.consumer().drain(timeout);
		}
		finally {
			run.threads().shutdown();
			this.draining.remove(run);
		}
	}

	/** Drains a detached run on a thread of its own, then runs the callback. */
	void drainInBackground(Run run, Duration timeout, Runnable callback) {
		Thread stopper = new Thread(() -> {
			try {
				drain(run, timeout);
			}
			finally {
				callback.run();
			}
		}, "delayqueue-stop-" + this.topic);
		stopper.setDaemon(true);
		stopper.start();
	}

	boolean isRunning() {
		return this.current != null;
	}

	boolean isActive() {
		Run run = this.current;
		return run != null && run.consumer().isActive();
	}

	boolean isClaimFailing() {
		Run run = this.current;
		return run != null && run.consumer().isClaimFailing();
	}

	/**
	 * The most messages the running consumer holds leased now.
	 * @param otherwise what to say when none runs
	 */
	int batchSize(int otherwise) {
		Run run = this.current;
		return (run != null) ? run.consumer().batchSize() : otherwise;
	}

	/** Handlers running now, in the current run and in those still draining. */
	int prefetched() {
		Run run = this.current;
		return (run != null) ? run.consumer().prefetched() : 0;
	}

	int inFlight() {
		Run run = this.current;
		int drainingInFlight = this.draining.stream().mapToInt((stopping) -> stopping.consumer().inFlight()).sum();
		return ((run != null) ? run.consumer().inFlight() : 0) + drainingInFlight;
	}

	boolean isHandlerThread() {
		Run run = this.current;
		return (run != null && run.consumer().isHandlerThread())
				|| this.draining.stream().anyMatch((stopping) -> stopping.consumer().isHandlerThread());
	}

	/** A consumer and its threads, from a start to the end of its drain. */
	record Run(ListenerConsumer consumer, ContainerThreads threads) {
	}

}
