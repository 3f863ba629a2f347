package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.TopicKeys;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one listener's topic: one {@link PartitionConsumer} per partition, woken each by its own wake channel,
 * each holding its share of the listener's batch size, all run by the listener's {@link HandlerThreads} (its
 * concurrency bounds the topic, not each partition). A handler thread takes the next message from the partitions in
 * turn, so a busy partition does not starve the others, and keeps taking messages while any waits; threads are started
 * as messages arrive, as many as there are messages waiting and slots free. The listener's {@link CrashIsolation}
 * runs a suspect alone.
 */
final class TopicConsumer {

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	/** How long interrupted handlers get to end before their messages are handed back, the attempt counted. */
	private static final Duration INTERRUPT_GRACE = Duration.ofMillis(200);

	private final String topic;

	private final int partitionCount;

	private final Prefetch prefetch;

	private final RedisMessageStore store;

	private final HandlerThreads handlers;

	private final CrashIsolation isolation;

	private final List<PartitionConsumer> partitions;

	/** Messages leased and waiting for a handler thread, in all partitions. */
	private final AtomicInteger waiting = new AtomicInteger();

	/** Handler threads started that have not taken their first message yet. */
	private final AtomicInteger starting = new AtomicInteger();

	/** The partition a handler thread looks at first for its next message. */
	private final AtomicInteger nextTurn = new AtomicInteger();

	private volatile boolean active;

	TopicConsumer(ListenerRegistration<?> registration, int partitionCount, ConsumerContext context) {
		@SuppressWarnings("unchecked")
		ListenerRegistration<Object> listener = (ListenerRegistration<Object>) registration;
		ListenerOptions options = registration.options();
		this.topic = registration.topic();
		this.partitionCount = partitionCount;
		this.store = context.store();
		ContainerProperties properties = context.properties();
		this.handlers = new HandlerThreads(this.topic, options.concurrency(), properties.getTaskExecutor(),
				properties.getTaskDecorator(), this::dispatch);
		this.isolation = context.isolation();
		// built once per listener: every partition's handlers call the same method the same way
		ListenerInvoker invoker = new ListenerInvoker(listener, context.converter(), properties.getMonitor(),
				properties.getObservationRegistry(), properties.getObservationConvention());
		this.prefetch = new Prefetch(options);
		List<PartitionConsumer> consumers = new ArrayList<>(partitionCount);
		for (int partition = 0; partition < partitionCount; partition++) {
			consumers.add(new PartitionConsumer(registration, TopicKeys.partitionName(this.topic, partition),
					this.prefetch, partitionCount, context, invoker, this.handlers, this.isolation, this.waiting,
					this::dispatch));
		}
		this.partitions = List.copyOf(consumers);
	}

	boolean isActive() {
		return this.active;
	}

	int inFlight() {
		return this.handlers.busy();
	}

	/** Messages leased and waiting for a handler thread (the prefetch), in all partitions. */
	int prefetched() {
		return Math.max(0, this.waiting.get());
	}

	/** The most messages the listener holds leased now (adapting, unless its batch size was set). */
	int batchSize() {
		return this.prefetch.size();
	}

	boolean isClaimFailing() {
		return this.partitions.stream().anyMatch(PartitionConsumer::isClaimFailing);
	}

	boolean isHandlerThread() {
		return this.handlers.isHandlerThread();
	}

	/**
	 * Starts consuming every partition, after checking that Redis keeps the topic's partition count; if a step
	 * fails, what was started is undone and the exception thrown.
	 * @param io runs claims, acknowledgement flushes and lease extensions (short Redis calls)
	 * @param maintenance times lease extensions and acknowledgement lingers and retries
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		this.store.partitions().check(this.topic, this.partitionCount);
		this.handlers.open();
		this.isolation.onSuspectEnded(this::afterSuspect);
		this.isolation.beforeSuspect(() -> this.partitions.forEach(PartitionConsumer::settleAcknowledgements));
		this.active = true;
		List<PartitionConsumer> started = new ArrayList<>();
		try {
			for (PartitionConsumer partition : this.partitions) {
				partition.start(io, maintenance);
				started.add(partition);
			}
		}
		catch (RuntimeException ex) {
			this.active = false;
			this.handlers.close();
			started.forEach(PartitionConsumer::beginStop);
			started.forEach(PartitionConsumer::handBack);
			this.handlers.interruptAndRelease();
			started.forEach(PartitionConsumer::flush);
			throw ex;
		}
		try {
			this.store.topics().register(List.of(this.topic));
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': could not add it to the known topics", this.topic, ex);
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
		this.handlers.close();
		this.partitions.forEach(PartitionConsumer::beginStop);
	}

	/**
	 * After {@link #beginStop()}: gives running handlers until the deadline, then interrupts those still running and
	 * gives them a moment more to end (a handler that stops when interrupted ends with its own outcome); a handler
	 * still running then has its message handed back with that attempt counted.
	 */
	synchronized void drain(Duration timeout) {
		try {
			if (!this.handlers.awaitIdle(timeout)) {
				logger.warn("Topic '{}': {} handler(s) still running after the shutdown timeout of {} ms; "
						+ "interrupting them", this.topic, this.handlers.busy(), timeout.toMillis());
				this.handlers.interruptRunning();
				if (!this.handlers.awaitIdle(INTERRUPT_GRACE)) {
					logger.warn("Topic '{}': {} handler(s) still running after being interrupted; handing their "
							+ "messages back with the attempt counted", this.topic, this.handlers.busy());
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		String reason = "Handler still running when its consumer stopped: not done within the shutdown timeout of "
				+ timeout.toMillis() + " ms, nor when interrupted";
		this.partitions.forEach((partition) -> partition.handBackRunning(reason));
		this.handlers.interruptAndRelease();
		this.partitions.forEach(PartitionConsumer::flush);
	}

	/**
	 * Starts handler threads for the messages waiting, as many as wait (less those starting already) and slots are
	 * free; while a suspect is held, only for the suspect. Runs when messages arrive and when a slot frees up.
	 */
	private void dispatch() {
		while (this.active) {
			if (startable() - this.starting.get() <= 0 || this.handlers.reserve(1) == 0) {
				return;
			}
			this.starting.incrementAndGet();
			if (!this.handlers.execute(this::work)) {
				this.starting.decrementAndGet();
				return;
			}
		}
	}

	private int startable() {
		if (this.isolation.isSuspectHeld()) {
			return this.partitions.stream().anyMatch(PartitionConsumer::isSuspectWaiting) ? 1 : 0;
		}
		return this.waiting.get();
	}

	/** A handler thread's run: takes and handles messages while any may start, then frees its slot. */
	private void work() {
		boolean first = true;
		try {
			while (true) {
				Next next = takeNext();
				if (first) {
					first = false;
					this.starting.decrementAndGet();
				}
				if (next == null) {
					return;
				}
				next.partition().run(next.delivery());
			}
		}
		finally {
			if (first) {
				this.starting.decrementAndGet();
			}
		}
	}

	/** The next message that may start, from the partitions in turn. */
	private @Nullable Next takeNext() {
		boolean batchedAllowed = !this.isolation.isSuspectHeld();
		int count = this.partitions.size();
		int start = (count == 1) ? 0 : Math.floorMod(this.nextTurn.getAndIncrement(), count);
		for (int i = 0; i < count; i++) {
			PartitionConsumer partition = this.partitions.get((start + i) % count);
			Delivery delivery = partition.poll(batchedAllowed);
			if (delivery != null) {
				return new Next(partition, delivery);
			}
		}
		return null;
	}

	/** A suspect's handling is over: batched messages start again, and every partition claims (the next suspect). */
	private void afterSuspect() {
		dispatch();
		this.partitions.forEach(PartitionConsumer::requestClaim);
	}

	private record Next(PartitionConsumer partition, Delivery delivery) {
	}

}
