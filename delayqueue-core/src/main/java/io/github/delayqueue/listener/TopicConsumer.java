package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.TaskDecorator;

/**
 * Consumes one listener's topic: one {@link PartitionConsumer} per partition, woken each by its own wake channel,
 * sharing the listener's {@link HandlerThreads} (its concurrency bounds the topic, not each partition). Fairly: a
 * handler takes its partition's next message only while no other partition's due messages wait, and a freed slot
 * goes to the waiting partitions in turn, so a busy partition does not starve the others.
 */
final class TopicConsumer {

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private final String topic;

	private final int partitionCount;

	private final RedisMessageStore store;

	private final HandlerThreads handlers;

	private final List<PartitionConsumer> partitions;

	/** Where the next freed handler slot starts looking for a waiting partition. */
	private final AtomicInteger nextTurn = new AtomicInteger();

	private volatile boolean active;

	TopicConsumer(ListenerRegistration<?> registration, int partitionCount, RedisMessageStore store,
			PayloadConverter converter, DelayedMessageScheduler scheduler, DelayQueueMonitor monitor,
			ObservationRegistry observationRegistry,
			@Nullable DelayQueueListenerObservationConvention observationConvention, @Nullable Executor taskExecutor,
			@Nullable TaskDecorator taskDecorator) {
		this.topic = registration.topic();
		this.partitionCount = partitionCount;
		this.store = store;
		ListenerOptions options = registration.options();
		this.handlers = new HandlerThreads(this.topic, options.concurrency(), taskExecutor, taskDecorator,
				this::onSlotFreed);
		// one suspect at a time for the whole listener: its partitions share the JVM a suspect may kill; the suspects
		// left waiting while one ran are claimed as it ends
		SuspectGate suspects = new SuspectGate(this::claimEverywhere);
		List<PartitionConsumer> consumers = new ArrayList<>(partitionCount);
		for (int partition = 0; partition < partitionCount; partition++) {
			int self = partition;
			consumers.add(new PartitionConsumer(registration, RedisMessageStore.partitionName(this.topic, partition),
					store, converter, scheduler, monitor, observationRegistry, observationConvention, this.handlers,
					suspects, (partitionCount == 1) ? () -> false : () -> othersWaiting(self)));
		}
		this.partitions = List.copyOf(consumers);
	}

	private void claimEverywhere() {
		this.partitions.forEach(PartitionConsumer::requestClaim);
	}

	boolean isActive() {
		return this.active;
	}

	int inFlight() {
		return this.handlers.busy();
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
	 * @param maintenance times lease extensions and acknowledgement retries
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		this.store.checkPartitions(this.topic, this.partitionCount);
		this.handlers.open();
		List<PartitionConsumer> started = new ArrayList<>();
		try {
			for (PartitionConsumer partition : this.partitions) {
				partition.start(io, maintenance);
				started.add(partition);
			}
		}
		catch (RuntimeException ex) {
			started.forEach(PartitionConsumer::beginStop);
			this.handlers.close();
			started.forEach(PartitionConsumer::handBack);
			this.handlers.interruptAndRelease();
			started.forEach(PartitionConsumer::flush);
			throw ex;
		}
		this.active = true;
		try {
			this.store.registerTopics(List.of(this.topic));
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': could not add it to the known topics", this.topic, ex);
		}
	}

	/**
	 * Stops claiming and starting handlers at once; {@link #drain(Duration)} then ends the running ones. Quick: a
	 * new consumer of the same topic may start as soon as this returns.
	 */
	synchronized void beginStop() {
		if (!this.active) {
			return;
		}
		this.active = false;
		this.partitions.forEach(PartitionConsumer::beginStop);
		this.handlers.close();
	}

	/**
	 * After {@link #beginStop()}: gives running handlers until the deadline, then hands what is unfinished back to
	 * the queue and interrupts those handlers.
	 */
	synchronized void drain(Duration timeout) {
		try {
			if (!this.handlers.awaitIdle(timeout)) {
				logger.warn("Topic '{}': {} handler(s) still running after the shutdown timeout of {}; "
						+ "handing their messages back", this.topic, this.handlers.busy(), timeout);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.partitions.forEach(PartitionConsumer::handBack);
		this.handlers.interruptAndRelease();
		this.partitions.forEach(PartitionConsumer::flush);
	}

	/**
	 * A handler slot is free: the next partition, in turn after the last one served, whose due messages wait for
	 * one claims them now (one whose claim is running already takes it in that claim's next round).
	 */
	private void onSlotFreed() {
		int count = this.partitions.size();
		int start = Math.floorMod(this.nextTurn.get(), count);
		for (int i = 0; i < count; i++) {
			int index = (start + i) % count;
			PartitionConsumer partition = this.partitions.get(index);
			if (partition.isWaiting()) {
				this.nextTurn.set(index + 1);
				if (partition.requestClaim() || count == 1) {
					return;
				}
			}
		}
	}

	private boolean othersWaiting(int self) {
		for (int i = 0; i < this.partitions.size(); i++) {
			if (i != self && this.partitions.get(i).isWaiting()) {
				return true;
			}
		}
		return false;
	}

}
