package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.Assert;

/**
 * One run of a listener, from a start to the end of its drain, and the one place that loops over its partitions:
 * each {@link Partition} claims into the listener's {@link ReadyQueue}; the listener's {@link HandlerThreads} (its
 * concurrency bounds the topic, not each partition) run the {@link HandlerLoop}, which takes from that queue and runs
 * each message; each outcome goes back through the partition that leased it. Messages flow one way: nothing below
 * calls back up.
 */
final class ListenerConsumer {

	private static final Logger logger = LoggerFactory.getLogger(ListenerConsumer.class);

	/** How long interrupted handlers get to end before their messages are handed back, the attempt counted. */
	private static final Duration INTERRUPT_GRACE = Duration.ofMillis(200);

	private final ListenerContext context;

	private final RedisMessageStore store;

	private final WakeUpTimer wakeUps;

	private final HandlerThreads threads;

	private final List<Partition> partitions;

	private final MessageRunner runner;

	private final HandlerLoop loop;

	private volatile boolean active;

	/**
	 * Creates a run of a listener.
	 * @param registration the listener
	 * @param partitionCount how many partitions its topic has
	 * @param parts what the container runs it with
	 */
	ListenerConsumer(ListenerRegistration<?> registration, int partitionCount, Parts parts) {
		@SuppressWarnings("unchecked")
		ListenerRegistration<Object> listener = (ListenerRegistration<Object>) registration;
		ListenerOptions options = registration.options();
		ContainerProperties properties = parts.properties();
		this.store = parts.store();
		this.wakeUps = parts.wakeUps();
		this.threads = new HandlerThreads(registration.topic(), options.concurrency(), properties.getTaskExecutor(),
				properties.getTaskDecorator());
		this.context = new ListenerContext(registration.topic(), partitionCount, options, parts.store(), properties,
				new Prefetch(options, capacity(registration)), parts.isolation(),
				new ReadyQueue(this.threads, parts.isolation()));
		List<Partition> consumers = new ArrayList<>(partitionCount);
		for (int index = 0; index < partitionCount; index++) {
			consumers.add(new Partition(this.context, index));
		}
		this.partitions = List.copyOf(consumers);
		// built once per listener: every partition's messages call the same method the same way
		ListenerInvoker invoker = new ListenerInvoker(listener, parts.converter(), properties.getMonitor(),
				properties.getObservationRegistry(), properties.getObservationConvention());
		this.runner = new MessageRunner(this.context, invoker);
		BatchRunner batches = null;
		if (listener.handler() instanceof DelayedBatchHandler<Object> batchHandler) {
			batches = new BatchRunner(this.context, new BatchInvoker(listener, batchHandler, parts.converter(),
					properties.getMonitor(), invoker), this.runner, this.partitions);
		}
		this.loop = new HandlerLoop(this.context, this.partitions, this.threads, this.runner, batches);
	}

	/**
	 * How many messages the listener handles at once: its threads, or its work in flight if it completes later; for a
	 * batch listener, that many calls of its most messages each, up to 128 (the prefetch leases twice this: a claim of
	 * 256 holds Redis for a few milliseconds at most).
	 */
	private static int capacity(ListenerRegistration<?> registration) {
		ListenerOptions options = registration.options();
		DelayedMessageHandler<?> handler = registration.handler();
		int calls = (handler instanceof AsyncDelayedMessageHandler<?> || handler instanceof AsyncDelayedBatchHandler<?>)
				? Math.max(options.concurrency(), options.asyncConcurrency()) : options.concurrency();
		if (handler instanceof DelayedBatchHandler<?>) {
			return (int) Math.min(128, (long) calls * options.batchMaxMessages());
		}
		return calls;
	}

	boolean isActive() {
		return this.active;
	}

	/** Handler threads running now. */
	int inFlight() {
		return this.threads.busy() + this.runner.pending().inFlight();
	}

	/** Messages leased and waiting for a handler thread (the prefetch), in all partitions. */
	int prefetched() {
		return this.context.ready().size();
	}

	/** The most messages the listener holds leased now (adapting, unless its batch size was set). */
	int batchSize() {
		return this.context.prefetch().size();
	}

	boolean isClaimFailing() {
		return this.partitions.stream().anyMatch(Partition::isClaimFailing);
	}

	boolean isHandlerThread() {
		return this.threads.isHandlerThread();
	}

	/**
	 * Starts consuming every partition, after checking that Redis keeps the topic's partition count; if a step
	 * fails, what was started is undone and the exception thrown.
	 * @param io runs claims, acknowledgement flushes and lease extensions (short Redis calls)
	 * @param maintenance times lease extensions, acknowledgement lingers and retries, and handler timeouts
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		String topic = this.context.topic();
		this.store.partitions().check(TopicKeys.topicOf(topic), this.partitions.size());
		String subscription = TopicKeys.subscriptionOf(topic);
		if (subscription != null) {
			// known to every instance before this one claims: the topic's messages fan out to it from now on
			for (Partition partition : this.partitions) {
				this.store.subscriptions().declare(TopicKeys.topicOf(partition.name()), subscription);
			}
		}
		else {
			Set<String> subscriptions = this.store.subscriptions().of(topic).keySet();
			Assert.state(subscriptions.isEmpty(), () -> "Topic '" + topic + "' has the subscriptions "
					+ new TreeSet<>(subscriptions) + " in Redis, which receive its messages alone: a listener of the "
					+ "topic itself would receive nothing. Give it a subscription, or remove them "
					+ "(DelayedQueueAdmin.removeSubscription)");
		}
		this.runner.start(io, maintenance);
		this.loop.start();
		this.threads.open(this.loop::work);
		this.active = true;
		List<Partition> started = new ArrayList<>();
		try {
			for (Partition partition : this.partitions) {
				partition.start(this.wakeUps, this.store.keys().wakeChannel(partition.name()), io, maintenance);
				started.add(partition);
			}
		}
		catch (RuntimeException ex) {
			this.active = false;
			stopStarting();
			started.forEach(Partition::handBackAll);
			this.threads.interruptAndRelease();
			started.forEach(Partition::flush);
			throw ex;
		}
		try {
			this.store.topics().register(List.of(topic));
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': could not add it to the known topics", topic, ex);
		}
	}

	/**
	 * Stops claiming and starting handlers at once, and hands the messages waiting for a handler back (unstarted,
	 * uncharged); {@link #drain(Duration)} then ends the running ones. Quick: a new consumer of the same topic may
	 * start as soon as this returns.
	 */
	synchronized void beginStop() {
		if (!this.active) {
			return;
		}
		this.active = false;
		stopStarting();
	}

	/** Stops claiming and starting, and hands back what waits for a handler (claims that end later do likewise). */
	private void stopStarting() {
		this.threads.close();
		this.runner.stop();
		this.loop.stop();
		this.partitions.forEach(Partition::stopClaiming);
		this.loop.handBack(this.context.ready().close());
	}

	/**
	 * After {@link #beginStop()}: gives running handlers until the deadline, then interrupts those still running and
	 * gives them a moment more to end (a handler that stops when interrupted ends with its own outcome); a handler
	 * still running then has its message handed back with that attempt counted.
	 */
	synchronized void drain(Duration timeout) {
		String topic = this.context.topic();
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			if (!this.threads.awaitIdle(timeout)) {
				logger.warn("Topic '{}': {} handler(s) still running after the shutdown timeout of {} ms; "
						+ "interrupting them", topic, this.threads.busy(), timeout.toMillis());
				this.threads.interruptRunning();
				if (!this.threads.awaitIdle(INTERRUPT_GRACE)) {
					logger.warn("Topic '{}': {} handler(s) still running after being interrupted; handing their "
							+ "messages back with the attempt counted", topic, this.threads.busy());
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (!awaitWorkInFlight(deadline)) {
			logger.warn("Topic '{}': the work of {} handler(s) still not complete after the shutdown timeout of {} ms; "
					+ "cancelling it and handing the messages back with the attempt counted", topic,
					this.runner.pending().inFlight(), timeout.toMillis());
			this.runner.pending().cancelInFlight();
		}
		String reason = "Handler still running when its consumer stopped: not done within the shutdown timeout of "
				+ timeout.toMillis() + " ms, nor when interrupted";
		this.partitions.forEach((partition) -> partition.handBackRunning(reason));
		this.threads.interruptAndRelease();
		this.partitions.forEach(Partition::flush);
	}

	/**
	 * Waits until the work of handlers that complete later has completed and been settled (on the I/O threads: no
	 * handler thread starts any more), or the deadline passes.
	 * @return whether none is in flight
	 */
	private boolean awaitWorkInFlight(long deadline) {
		while (this.runner.pending().inFlight() > 0) {
			this.runner.pending().settleCompleted();
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return this.runner.pending().inFlight() == 0;
			}
			LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(5)));
		}
		return true;
	}

	/**
	 * What a container runs a listener with, as it was configured when it started.
	 *
	 * @param store the Redis store
	 * @param converter reads payloads as the listener's payload type
	 * @param wakeUps wakes the partitions when messages fall due
	 * @param properties a copy of the container's properties, taken at start
	 * @param isolation the listener's crash isolation, the same for all the container's runs
	 */
	record Parts(RedisMessageStore store, PayloadConverter converter, WakeUpTimer wakeUps,
			ContainerProperties properties, CrashIsolation isolation) {
	}

}
