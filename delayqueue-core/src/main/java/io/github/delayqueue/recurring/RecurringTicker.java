package io.github.delayqueue.recurring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The ticker: runs every poll interval, on the {@link TaskScheduler} given or on a scheduler of its own, defining
 * the declared schedules until they are defined and then firing what is due; it logs a failure to read the
 * definitions once, until they are read again, and on stop waits for a run in progress.
 */
final class RecurringTicker {

	// the schedules' one log category, as before they were split by job
	private static final Logger logger = LoggerFactory.getLogger(RedisRecurringSchedules.class);

	/** Defines a declared schedule unless Redis holds the same definition already. */
	private final Consumer<RecurringSchedule> declare;

	/** Fires what is due. */
	private final Runnable fireDue;

	private Duration pollInterval = RedisRecurringSchedules.DEFAULT_POLL_INTERVAL;

	/** The scheduler given, or {@code null} to run on one of its own. */
	private @Nullable TaskScheduler taskScheduler;

	/** The scheduler it created for itself while running without one given. */
	private @Nullable ThreadPoolTaskScheduler ownScheduler;

	/** The ticker's repeated task, while running. */
	private @Nullable ScheduledFuture<?> ticker;

	/** Held while the ticker runs, so that {@link #stop()} waits for a run in progress. */
	private final ReentrantLock running = new ReentrantLock();

	/** Whether the last look at the definitions failed (logged once, until it works again). */
	private volatile boolean failing;

	/** Schedules to define at start (from configuration), until defined. */
	private volatile List<RecurringSchedule> declared = List.of();

	RecurringTicker(Consumer<RecurringSchedule> declare, Runnable fireDue) {
		this.declare = declare;
		this.fireDue = fireDue;
	}

	void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.taskScheduler = taskScheduler;
	}

	void setDeclaredSchedules(List<RecurringSchedule> schedules) {
		this.declared = List.copyOf(schedules);
	}

	synchronized void start() {
		if (this.ticker != null) {
			return;
		}
		TaskScheduler scheduler = this.taskScheduler;
		if (scheduler == null) {
			ThreadPoolTaskScheduler own = new ThreadPoolTaskScheduler();
			own.setThreadNamePrefix("delayqueue-recurring-");
			own.setDaemon(true);
			own.initialize();
			this.ownScheduler = own;
			scheduler = own;
		}
		this.ticker = scheduler.scheduleWithFixedDelay(this::fireQuietly, this.pollInterval);
	}

	private void fireQuietly() {
		this.running.lock();
		try {
			fireAndLog();
		}
		finally {
			this.running.unlock();
		}
	}

	private void fireAndLog() {
		boolean wasFailing = this.failing;
		try {
			List<RecurringSchedule> toDefine = this.declared;
			if (!toDefine.isEmpty()) {
				List<RecurringSchedule> failed = new ArrayList<>();
				for (RecurringSchedule schedule : toDefine) {
					try {
						this.declare.accept(schedule);
					}
					catch (RuntimeException ex) {
						failed.add(schedule);
						logger.warn("Could not define recurring schedule '{}'; trying again in {}", schedule.name(),
								this.pollInterval, ex);
					}
				}
				this.declared = List.copyOf(failed);
			}
			this.fireDue.run();
			if (wasFailing) {
				this.failing = false;
				logger.info("Recurring schedules are read again");
			}
		}
		catch (RuntimeException ex) {
			this.failing = true;
			if (!wasFailing) {
				logger.warn("Could not read the recurring schedules; trying again every {}", this.pollInterval, ex);
			}
			else {
				logger.debug("Could not read the recurring schedules again", ex);
			}
		}
	}

	/** Stops the ticker, waiting up to 5 seconds for a run in progress to end. */
	synchronized void stop() {
		ScheduledFuture<?> task = this.ticker;
		this.ticker = null;
		if (task != null) {
			task.cancel(false);
			try {
				if (this.running.tryLock(5, TimeUnit.SECONDS)) {
					this.running.unlock();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		ThreadPoolTaskScheduler own = this.ownScheduler;
		this.ownScheduler = null;
		if (own != null) {
			own.shutdown();
		}
	}

	synchronized boolean isRunning() {
		return this.ticker != null;
	}

}
