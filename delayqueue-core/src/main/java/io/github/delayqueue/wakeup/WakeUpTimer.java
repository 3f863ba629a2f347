package io.github.delayqueue.wakeup;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.Assert;

/**
 * The wake-up timer: wakes topic consumers when their messages fall due (it schedules nothing itself; messages are
 * scheduled through {@link io.github.delayqueue.DelayedQueue}). One Netty {@link HashedWheelTimer} for the application
 * holds one timeout per topic, armed for the earliest due time the consumer knows of. The topic's wake channel
 * re-arms it when a new message becomes the head; the last tick or two before a due time are timed by a precise
 * scheduled executor instead, since a wheel fires on tick boundaries. On every (re)subscription the topic fires
 * at once, because pub/sub drops what is published while disconnected; a slow fallback poll fires every topic, which also
 * recovers expired leases. Timer callbacks only hand work to other threads: nothing runs on the tick thread.
 * <p>
 * Starts before and stops after the listener containers ({@link #DEFAULT_PHASE}).
 *
 * @since 0.3.0
 */
public class WakeUpTimer implements SmartLifecycle {

	/** The default lifecycle phase: before the listener containers start, after they stop. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 200;

	/** The default wheel tick. */
	public static final Duration DEFAULT_TICK = Duration.ofMillis(10);

	/** The default fallback poll interval. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

	private static final Logger logger = LoggerFactory.getLogger(WakeUpTimer.class);

	private final RedisConnectionFactory connectionFactory;

	private final Duration tick;

	private final Duration pollInterval;

	/** Channel, then owner (a topic's or a subscription's name), to trigger. */
	private final Map<String, Map<String, Trigger>> triggersByChannel = new ConcurrentHashMap<>();

	private final WakeListener wakeListener = new WakeListener();

	private final Object lifecycleMonitor = new Object();

	private volatile @Nullable HashedWheelTimer timer;

	private @Nullable RedisMessageListenerContainer subscriptions;

	private volatile @Nullable ScheduledExecutorService poller;

	private @Nullable ScheduledFuture<?> pollTask;

	private int phase = DEFAULT_PHASE;

	private boolean autoStartup = true;

	private volatile boolean running;

	/**
	 * Creates a scheduler with the default tick and poll interval.
	 * @param connectionFactory the Redis connection factory for the wake-channel subscription
	 */
	public WakeUpTimer(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_TICK, DEFAULT_POLL_INTERVAL);
	}

	/**
	 * Creates a scheduler.
	 * @param connectionFactory the Redis connection factory for the wake-channel subscription
	 * @param tick the wheel timer's tick, at least 1 ms: the precision of wake-ups
	 * @param pollInterval how often every topic is polled as a fallback
	 */
	public WakeUpTimer(RedisConnectionFactory connectionFactory, Duration tick, Duration pollInterval) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.isTrue(tick != null && tick.toMillis() >= 1, () -> "Tick must be at least 1ms, but was " + tick);
		Assert.isTrue(pollInterval != null && pollInterval.toMillis() >= 1,
				() -> "Poll interval must be at least 1ms, but was " + pollInterval);
		this.connectionFactory = connectionFactory;
		this.tick = tick;
		this.pollInterval = pollInterval;
	}

	/**
	 * Registers a topic. Its trigger fires {@code onDue} when its armed time comes, when its wake channel says a
	 * message is due, on (re)subscription and on every poll.
	 * @param wakeChannel the topic's wake channel
	 * @param onDue what to run when the topic may have due messages; must not block
	 * @return the topic's trigger
	 * @throws IllegalStateException if the channel is registered already
	 */
	public TopicTrigger register(String wakeChannel, Runnable onDue) {
		return register(wakeChannel, null, onDue);
	}

	/**
	 * Registers one of the owners of a wake channel: a topic's subscriptions share its channel, each with a trigger of
	 * its own, armed on its own.
	 * @param wakeChannel the topic's wake channel
	 * @param owner the name of what consumes through the trigger, such as a subscription's; {@code null} for the topic
	 * itself
	 * @param onDue what to run when the topic may have due messages; must not block
	 * @return the owner's trigger
	 * @throws IllegalStateException if the channel is registered already for that owner
	 * @since 0.3.0
	 */
	public TopicTrigger register(String wakeChannel, @Nullable String owner, Runnable onDue) {
		Trigger trigger = new Trigger(wakeChannel, (owner != null) ? owner : "", onDue);
		synchronized (this.lifecycleMonitor) {
			Map<String, Trigger> owners = this.triggersByChannel.computeIfAbsent(wakeChannel,
					(channel) -> new ConcurrentHashMap<>());
			Assert.state(owners.putIfAbsent(trigger.owner, trigger) == null, () -> "Wake channel " + wakeChannel
					+ ((owner != null) ? " of " + owner : "") + " is registered already");
			if (owners.size() == 1 && this.subscriptions != null) {
				this.subscriptions.addMessageListener(this.wakeListener, new ChannelTopic(wakeChannel));
			}
		}
		return trigger;
	}

	private void unregister(Trigger trigger) {
		synchronized (this.lifecycleMonitor) {
			Map<String, Trigger> owners = this.triggersByChannel.get(trigger.channel);
			if (owners != null && owners.remove(trigger.owner, trigger) && owners.isEmpty()) {
				this.triggersByChannel.remove(trigger.channel);
				if (this.subscriptions != null) {
					this.subscriptions.removeMessageListener(this.wakeListener, new ChannelTopic(trigger.channel));
				}
			}
		}
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.timer = new HashedWheelTimer(threadFactory("delayqueue-timer"), this.tick.toMillis(),
					TimeUnit.MILLISECONDS, 512);
			this.timer.start();
			this.poller = Executors.newSingleThreadScheduledExecutor(threadFactory("delayqueue-poll"));
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			container.setTaskExecutor(Runnable::run);
			// a blocking client (Jedis) holds a thread for its subscription: its own, never the caller's
			SimpleAsyncTaskExecutor subscriptionThreads = new SimpleAsyncTaskExecutor("delayqueue-wake-");
			subscriptionThreads.setDaemon(true);
			container.setSubscriptionExecutor(subscriptionThreads);
			container.setErrorHandler((ex) -> logger.warn("Wake channel listener failed", ex));
			container.setBeanName("delayqueueWakeSubscriptions");
			container.afterPropertiesSet();
			this.triggersByChannel.keySet()
				.forEach((channel) -> container.addMessageListener(this.wakeListener, new ChannelTopic(channel)));
			container.start();
			this.subscriptions = container;
			long period = this.pollInterval.toMillis();
			this.pollTask = this.poller.scheduleWithFixedDelay(this::pollAll, period, period, TimeUnit.MILLISECONDS);
			this.running = true;
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			if (this.pollTask != null) {
				this.pollTask.cancel(false);
			}
			if (this.poller != null) {
				this.poller.shutdownNow();
				this.poller = null;
			}
			if (this.subscriptions != null) {
				try {
					this.subscriptions.stop();
					this.subscriptions.destroy();
				}
				catch (Exception ex) {
					logger.debug("Closing the wake channel subscriptions failed", ex);
				}
				this.subscriptions = null;
			}
			HashedWheelTimer wheel = this.timer;
			this.timer = null;
			if (wheel != null) {
				wheel.stop();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	/**
	 * Sets the lifecycle phase.
	 * @param phase the phase; must be lower than the listener containers'
	 */
	public void setPhase(int phase) {
		this.phase = phase;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Sets whether the timer starts with the application context.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Whether the wake-channel subscription is established now.
	 * @return {@code true} while subscribed
	 */
	public boolean isSubscribed() {
		RedisMessageListenerContainer container = this.subscriptions;
		return container != null && container.isListening();
	}

	private void pollAll() {
		this.triggersByChannel.values().forEach((owners) -> owners.values().forEach(Trigger::fire));
	}

	/**
	 * Warns, once at start, about Redis settings that lose accepted messages: an eviction policy other than
	 * {@code noeviction}, and no append-only file (a restart then loses what was accepted since the last snapshot).
	 * Skipped where {@code CONFIG GET} is not allowed.
	 */
	private static ThreadFactory threadFactory(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	private final class WakeListener implements MessageListener, SubscriptionListener {

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			Map<String, Trigger> owners = WakeUpTimer.this.triggersByChannel
				.get(new String(message.getChannel(), StandardCharsets.UTF_8));
			if (owners == null) {
				return;
			}
			long delay;
			try {
				delay = Long.parseLong(new String(message.getBody(), StandardCharsets.US_ASCII).trim());
			}
			catch (NumberFormatException ex) {
				delay = 0;
			}
			for (Trigger trigger : owners.values()) {
				trigger.armIn(delay, TimeUnit.MILLISECONDS);
			}
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			Map<String, Trigger> owners = WakeUpTimer.this.triggersByChannel
				.get(new String(channel, StandardCharsets.UTF_8));
			if (owners != null) {
				owners.values().forEach(Trigger::fire);
			}
		}

	}

	private final class Trigger implements TopicTrigger {

		private final String channel;

		private final String owner;

		private final Runnable onDue;

		private @Nullable Timeout timeout;

		private @Nullable ScheduledFuture<?> finalApproach;

		private long deadlineNanos;

		private volatile boolean closed;

		Trigger(String channel, String owner, Runnable onDue) {
			this.channel = channel;
			this.owner = owner;
			this.onDue = onDue;
		}

		@Override
		public void armIn(long delay, TimeUnit unit) {
			if (this.closed) {
				return;
			}
			if (delay <= 0) {
				fire();
				return;
			}
			long delayNanos = unit.toNanos(delay);
			HashedWheelTimer wheel = WakeUpTimer.this.timer;
			ScheduledExecutorService precise = WakeUpTimer.this.poller;
			if (wheel == null || precise == null) {
				return;
			}
			long tickNanos = WakeUpTimer.this.tick.toNanos();
			long deadline = System.nanoTime() + delayNanos;
			synchronized (this) {
				// armed no later than asked, for a time still ahead (one that has come may be firing right now)
				if (isArmed() && this.deadlineNanos - deadline <= 0 && this.deadlineNanos - System.nanoTime() > 0) {
					return;
				}
				disarm();
				this.deadlineNanos = deadline;
				try {
					if (delayNanos <= 2 * tickNanos) {
						// the final approach: a wheel fires on a tick boundary, up to a tick late; this fires on time
						this.finalApproach = precise.schedule(this::fire, delayNanos, TimeUnit.NANOSECONDS);
					}
					else {
						// one tick early: the claim it triggers finds the message not yet due and re-arms for the
						// remaining time, which takes the final approach
						this.timeout = wheel.newTimeout((expired) -> fire(), delayNanos - tickNanos,
								TimeUnit.NANOSECONDS);
					}
				}
				catch (IllegalStateException | RejectedExecutionException ex) {
					// stopping
					disarm();
				}
			}
		}

		private boolean isArmed() {
			Timeout current = this.timeout;
			ScheduledFuture<?> approach = this.finalApproach;
			return (current != null && !current.isExpired() && !current.isCancelled())
					|| (approach != null && !approach.isDone());
		}

		private void disarm() {
			if (this.timeout != null) {
				this.timeout.cancel();
				this.timeout = null;
			}
			if (this.finalApproach != null) {
				this.finalApproach.cancel(false);
				this.finalApproach = null;
			}
		}

		@Override
		public void fire() {
			if (!this.closed) {
				this.onDue.run();
			}
		}

		@Override
		public void close() {
			this.closed = true;
			synchronized (this) {
				disarm();
			}
			unregister(this);
		}

	}

}
