package io.github.delayqueue.wakeup;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
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
 * A facade over one object per job: {@code WakeUpClocks} (the wheel and the precise executor, which also runs the
 * poll), {@code WakeSubscriptions} (the wake channels' subscription) and one {@code WakeUpAlarm} per trigger (its
 * arming); the triggers, by channel and owner, and the lifecycle are its own.
 * <p>
 * Starts before and stops after the listener containers ({@link #DEFAULT_PHASE}).
 *
 * @since 1.0.0
 */
public class WakeUpTimer implements SmartLifecycle {

	/** The default lifecycle phase: before the listener containers start, after they stop. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 200;

	/** The default wheel tick. */
	public static final Duration DEFAULT_TICK = Duration.ofMillis(10);

	/** The default fallback poll interval. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

	private final Duration pollInterval;

	/** Channel, then owner (a topic's or a subscription's name), to trigger. */
	private final Map<String, Map<String, Trigger>> triggersByChannel = new ConcurrentHashMap<>();

	private final WakeUpClocks clocks;

	private final WakeSubscriptions subscriptions;

	private final Object lifecycleMonitor = new Object();

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
		this.pollInterval = pollInterval;
		this.clocks = new WakeUpClocks(tick);
		this.subscriptions = new WakeSubscriptions(connectionFactory, this.triggersByChannel);
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
	 * @since 1.0.0
	 */
	public TopicTrigger register(String wakeChannel, @Nullable String owner, Runnable onDue) {
		Trigger trigger = new Trigger(wakeChannel, (owner != null) ? owner : "", new WakeUpAlarm(onDue, this.clocks));
		synchronized (this.lifecycleMonitor) {
			Map<String, Trigger> owners = this.triggersByChannel.computeIfAbsent(wakeChannel,
					(channel) -> new ConcurrentHashMap<>());
			Assert.state(owners.putIfAbsent(trigger.owner, trigger) == null, () -> "Wake channel " + wakeChannel
					+ ((owner != null) ? " of " + owner : "") + " is registered already");
			if (owners.size() == 1) {
				this.subscriptions.add(wakeChannel);
			}
		}
		return trigger;
	}

	private void unregister(Trigger trigger) {
		synchronized (this.lifecycleMonitor) {
			Map<String, Trigger> owners = this.triggersByChannel.get(trigger.channel);
			if (owners != null && owners.remove(trigger.owner, trigger) && owners.isEmpty()) {
				this.triggersByChannel.remove(trigger.channel);
				this.subscriptions.remove(trigger.channel);
			}
		}
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.clocks.start();
			this.subscriptions.start(this.triggersByChannel.keySet());
			this.clocks.poll(this::pollAll, this.pollInterval);
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
			// the poll and the final approaches first, then the subscription, then the wheel
			this.clocks.stopPrecise();
			this.subscriptions.stop();
			this.clocks.stopWheel();
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
		return this.subscriptions.isListening();
	}

	private void pollAll() {
		this.triggersByChannel.values().forEach((owners) -> owners.values().forEach(Trigger::fire));
	}

	/** A registered trigger: its channel and owner, and the alarm that arms and fires it. */
	private final class Trigger implements TopicTrigger {

		private final String channel;

		private final String owner;

		private final WakeUpAlarm alarm;

		Trigger(String channel, String owner, WakeUpAlarm alarm) {
			this.channel = channel;
			this.owner = owner;
			this.alarm = alarm;
		}

		@Override
		public void armIn(long delay, TimeUnit unit) {
			this.alarm.armIn(delay, unit);
		}

		@Override
		public void fire() {
			this.alarm.fire();
		}

		@Override
		public void close() {
			this.alarm.close();
			unregister(this);
		}

	}

}
