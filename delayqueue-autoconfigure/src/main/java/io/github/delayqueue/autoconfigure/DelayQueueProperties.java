package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.recurring.MissedTicks;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for delayqueue ({@code delayqueue.*}). They hold values only: each is checked by the
 * part it configures when the auto-configuration maps it ({@code DelayQueuePropertiesMapper}), so a bad value fails
 * start-up with a message that names the property, and the rules live in one place.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties {

	/**
	 * Whether to auto-configure delayqueue.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel delayqueue uses.
	 */
	private String keyPrefix = "dq";

	/**
	 * Largest serialised payload accepted by schedule.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Whether schedule, cancel and reschedule calls made inside a Spring-managed transaction take effect after it
	 * commits (and not at all on rollback). Outside a transaction they act at once either way.
	 */
	private boolean transactionAware = true;

	/**
	 * Whether to call the scripts as the functions of delayqueue's Redis Functions library, loaded once per server
	 * (Redis 7.0+, with Lettuce), rather than with EVALSHA. A server or ACL user that refuses Functions gets EVALSHA
	 * anyway.
	 */
	private boolean redisFunctions = true;

	/**
	 * Stored format of plain messages scheduled from here: 5 keeps a message's first wait in small sorted sets of
	 * its topic (its pages, about 100 bytes of Redis memory a message), 2 in the topic's one pending set (about 170
	 * bytes), which releases before 0.3 read. Every instance of this release reads both. Set 2 while an instance of an
	 * earlier release still uses the same Redis.
	 */
	private int storedFormat = 5;

	private final Listener listener = new Listener();

	private final WakeUp wakeUp = new WakeUp();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Metrics metrics = new Metrics();

	private final Observation observation = new Observation();

	private final Durability durability = new Durability();

	private final Recurring recurring = new Recurring();

	/**
	 * Settings per topic, by topic name.
	 */
	private final Map<String, Topic> topics = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public boolean isTransactionAware() {
		return this.transactionAware;
	}

	public void setTransactionAware(boolean transactionAware) {
		this.transactionAware = transactionAware;
	}

	public int getStoredFormat() {
		return this.storedFormat;
	}

	public void setStoredFormat(int storedFormat) {
		this.storedFormat = storedFormat;
	}

	public boolean isRedisFunctions() {
		return this.redisFunctions;
	}

	public void setRedisFunctions(boolean redisFunctions) {
		this.redisFunctions = redisFunctions;
	}

	public Listener getListener() {
		return this.listener;
	}

	public WakeUp getWakeUp() {
		return this.wakeUp;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Observation getObservation() {
		return this.observation;
	}

	public Map<String, Topic> getTopics() {
		return this.topics;
	}

	public Recurring getRecurring() {
		return this.recurring;
	}

	public Durability getDurability() {
		return this.durability;
	}

	/**
	 * Replica-acknowledged writes: schedule, cancel, reschedule, dead-letter replay and purge return only once
	 * replicas confirm them (Redis WAIT), so that a failover does not lose them.
	 */
	/**
	 * Recurring schedules: the ticker and the schedules declared here (defined, or redefined, in Redis at start).
	 */
	public static class Recurring {

		/**
		 * Whether this instance fires recurring schedules (any number of instances may: each tick fires once).
		 */
		private boolean enabled = true;

		/**
		 * Time between two looks at the definitions; a tick is stored up to twice this ahead of its time.
		 */
		private Duration pollInterval = Duration.ofMillis(500);

		/**
		 * Schedules by name.
		 */
		private final Map<String, Schedule> schedules = new LinkedHashMap<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Map<String, Schedule> getSchedules() {
			return this.schedules;
		}

	}

	/**
	 * One recurring schedule declared in properties.
	 */
	public static class Schedule {

		/**
		 * Topic its messages go to.
		 */
		private @Nullable String topic;

		/**
		 * Cron expression (six fields, with seconds); set this or 'every'.
		 */
		private @Nullable String cron;

		/**
		 * Fixed interval, ticking at whole multiples of it since the epoch; set this or 'cron'.
		 */
		private @Nullable Duration every;

		/**
		 * Zone the cron expression is read in, such as 'Europe/Berlin'.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * Payload of every tick's message, as JSON text (a JSON string needs its quotes).
		 */
		private @Nullable String payload;

		/**
		 * What happens to ticks missed while no instance ran: skip, fire-once or fire-each.
		 */
		private MissedTicks missedTicks = MissedTicks.FIRE_ONCE;

		/**
		 * Most missed ticks fire-each fires.
		 */
		private int maxMissed = 10;

		public @Nullable String getTopic() {
			return this.topic;
		}

		public void setTopic(@Nullable String topic) {
			this.topic = topic;
		}

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public @Nullable Duration getEvery() {
			return this.every;
		}

		public void setEvery(@Nullable Duration every) {
			this.every = every;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public @Nullable String getPayload() {
			return this.payload;
		}

		public void setPayload(@Nullable String payload) {
			this.payload = payload;
		}

		public MissedTicks getMissedTicks() {
			return this.missedTicks;
		}

		public void setMissedTicks(MissedTicks missedTicks) {
			this.missedTicks = missedTicks;
		}

		public int getMaxMissed() {
			return this.maxMissed;
		}

		public void setMaxMissed(int maxMissed) {
			this.maxMissed = maxMissed;
		}

	}

	public static class Durability {

		/**
		 * Replicas that must confirm each such change; 0 waits for none.
		 */
		private int replicas;

		/**
		 * How long to wait for the replicas before the change fails (it holds on the master then).
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of one topic; its producers and consumers must agree on them.
	 */
	public static class Topic {

		/**
		 * Partitions of the topic, each with a hash tag of its own, so that Redis Cluster spreads it over several
		 * masters. Redis keeps the count a topic was first used with; change it only while the topic is empty.
		 */
		private int partitions = 1;

		/**
		 * Most handler starts per second, across every instance; applied to Redis at start-up. Unset, the topic's
		 * rate limit is left as Redis keeps it (set through DelayedQueueAdmin or the actuator endpoint).
		 */
		private @Nullable Double rateLimit;

		/**
		 * Most messages in flight at once, across every instance; applied to Redis at start-up. Unset, the topic's
		 * cap is left as Redis keeps it.
		 */
		private @Nullable Integer maxInFlight;

		/**
		 * Most messages of one group (see ScheduleRequest.Builder#group) in flight at once, across every instance:
		 * the default of each of the topic's groups; applied to Redis at start-up. Unset, the default is left as
		 * Redis keeps it.
		 */
		private @Nullable Integer groupMaxInFlight;

		/**
		 * How the topic orders the priorities of its due messages (see ScheduleRequest.Builder#priority): weighted
		 * shares with a starvation guard, or strict order; applied to Redis at start-up. Unset, the mode is left as
		 * Redis keeps it (weighted unless set).
		 */
		private MessagePriorities.@Nullable PriorityMode priorityMode;

		/**
		 * Most handler starts per second of one group (see ScheduleRequest.Builder#group), across every instance:
		 * the default of each of the topic's groups; applied to Redis at start-up. Unset, the default is left as
		 * Redis keeps it.
		 */
		private @Nullable Double groupRateLimit;

		/**
		 * Subscriptions of the topic to declare in Redis at start-up (1 to 100 characters of A-Z a-z 0-9 . _ -
		 * each): every subscription receives each of the topic's messages that fall due from then on, and keeps its
		 * copies until its listeners take them, even if none runs yet. A listener with a subscription declares its own;
		 * list them here in the application that schedules, so that no message falls due before its subscriptions
		 * exist. Declared ones stay until removed (DelayedQueueAdmin#removeSubscription).
		 */
		private List<String> subscriptions = new ArrayList<>();

		/**
		 * Settings of single groups of the topic, by group key, overriding the topic's defaults.
		 */
		private Map<String, Group> groups = new LinkedHashMap<>();

		/**
		 * Metrics of the topic.
		 */
		private final TopicMetrics metrics = new TopicMetrics();

		public int getPartitions() {
			return this.partitions;
		}

		public void setPartitions(int partitions) {
			this.partitions = partitions;
		}

		public @Nullable Double getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable Double rateLimit) {
			this.rateLimit = rateLimit;
		}

		public @Nullable Integer getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(@Nullable Integer maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

		public @Nullable Integer getGroupMaxInFlight() {
			return this.groupMaxInFlight;
		}

		public void setGroupMaxInFlight(@Nullable Integer groupMaxInFlight) {
			this.groupMaxInFlight = groupMaxInFlight;
		}

		public @Nullable Double getGroupRateLimit() {
			return this.groupRateLimit;
		}

		public void setGroupRateLimit(@Nullable Double groupRateLimit) {
			this.groupRateLimit = groupRateLimit;
		}

		public MessagePriorities.@Nullable PriorityMode getPriorityMode() {
			return this.priorityMode;
		}

		public void setPriorityMode(MessagePriorities.@Nullable PriorityMode priorityMode) {
			this.priorityMode = priorityMode;
		}

		public List<String> getSubscriptions() {
			return this.subscriptions;
		}

		public void setSubscriptions(List<String> subscriptions) {
			this.subscriptions = subscriptions;
		}

		public Map<String, Group> getGroups() {
			return this.groups;
		}

		public void setGroups(Map<String, Group> groups) {
			this.groups = groups;
		}

		public TopicMetrics getMetrics() {
			return this.metrics;
		}

	}

	/**
	 * Metrics of one topic.
	 */
	public static class TopicMetrics {

		/**
		 * Group keys whose messages the delivered, retried, recovered and dead counters and the lateness timer count
		 * under a 'group' tag of their own (at most 100 per topic). Empty on every topic (the default): no meter has a
		 * 'group' tag. Once a topic names one, every topic's meters carry the tag, 'other' for the messages of groups
		 * not named and those without a group.
		 */
		private List<String> groups = new ArrayList<>();

		public List<String> getGroups() {
			return this.groups;
		}

		public void setGroups(List<String> groups) {
			this.groups = groups;
		}

	}

	/**
	 * Settings of one group of a topic.
	 */
	public static class Group {

		/**
		 * Most messages of the group in flight at once, across every instance; applied to Redis at start-up.
		 */
		private @Nullable Integer maxInFlight;

		/**
		 * Most handler starts of the group per second, across every instance; applied to Redis at start-up.
		 */
		private @Nullable Double rateLimit;

		/**
		 * Share of the group among the topic's groups served in turn, 1 to 100: a group of weight 3 gets three times
		 * the deliveries of a group of weight 1 while both have messages due; applied to Redis at start-up. Unset,
		 * the weight is left as Redis keeps it (1 unless set).
		 */
		private @Nullable Integer weight;

		public @Nullable Integer getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(@Nullable Integer maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

		public @Nullable Double getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable Double rateLimit) {
			this.rateLimit = rateLimit;
		}

		public @Nullable Integer getWeight() {
			return this.weight;
		}

		public void setWeight(@Nullable Integer weight) {
			this.weight = weight;
		}

	}

	/**
	 * Micrometer metrics, recorded when a MeterRegistry bean exists.
	 */
	public static class Metrics {

		/**
		 * Whether to record metrics.
		 */
		private boolean enabled = true;

		/**
		 * How often the per-topic gauges are read from Redis in the background.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/**
	 * Micrometer observations (and so tracing across the delay), made when an ObservationRegistry bean exists.
	 */
	public static class Observation {

		/**
		 * Whether to observe schedule calls and handler calls.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Defaults for every listener; {@code @DelayedListener} attributes override them per listener.
	 */
	public static class Listener {

		/**
		 * Whether listeners start with the application context, unless a listener says otherwise (the wake-up timer
		 * has its own setting).
		 */
		private boolean autoStartup = true;

		/**
		 * Most messages a consumer holds leased at once: the ones its handlers run plus the ones claimed ahead
		 * of them, all claimed (and acknowledged) in one round trip. Unset, it adapts from twice the concurrency up
		 * to 128, growing only while claims rather than handlers limit the throughput.
		 */
		private @Nullable Integer batchSize;

		/**
		 * Handlers running at once per topic.
		 */
		private int concurrency = 4;

		/**
		 * Messages handled at once per topic by a listener whose work completes later (it returns a CompletableFuture
		 * or a Mono, or is a Kotlin suspend function), counted until the work completes; its handler threads start no
		 * more until one does.
		 */
		private int asyncConcurrency = 256;

		/**
		 * Lease of a claimed message; a consumer that stops extending it loses the message to another after
		 * this long.
		 */
		private Duration visibilityTimeout = Duration.ofSeconds(30);

		/**
		 * Attempts before a failing message goes to the dead letters.
		 */
		private int maxAttempts = 10;

		/**
		 * How long a handler may run before its message is attempted again (the attempt counts) and its thread
		 * interrupted. Unset, leases are extended while a handler runs, however long.
		 */
		private @Nullable Duration handlerTimeout;

		/**
		 * Whether claims lease a message shortly before it falls due (1 to 5 ms: two claim round trips), so that
		 * it starts on time; a cancel, reschedule or replace in that window then answers "in flight". False keeps
		 * every message waiting, and cancellable, until its due time, at the price of starting it a claim's round
		 * trip or more after it.
		 */
		private boolean leaseAhead = true;

		/**
		 * For batch listeners (@DelayedListener(batch = "true")): the most messages one call takes, 1 to 1000.
		 */
		private int batchMaxMessages = 100;

		/**
		 * For batch listeners: how long a call waits for more messages once its first is due, when fewer than
		 * batch-max-messages are ready; at most 1 minute. Zero takes what is ready.
		 */
		private Duration batchMaxWait = Duration.ZERO;

		/**
		 * Time running handlers get to finish on shutdown before their messages are handed back, that attempt
		 * counted.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(10);

		private final Backoff backoff = new Backoff();

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public @Nullable Integer getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(@Nullable Integer batchSize) {
			this.batchSize = batchSize;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public int getAsyncConcurrency() {
			return this.asyncConcurrency;
		}

		public void setAsyncConcurrency(int asyncConcurrency) {
			this.asyncConcurrency = asyncConcurrency;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public @Nullable Duration getHandlerTimeout() {
			return this.handlerTimeout;
		}

		public void setHandlerTimeout(@Nullable Duration handlerTimeout) {
			this.handlerTimeout = handlerTimeout;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public boolean isLeaseAhead() {
			return this.leaseAhead;
		}

		public void setLeaseAhead(boolean leaseAhead) {
			this.leaseAhead = leaseAhead;
		}

		public int getBatchMaxMessages() {
			return this.batchMaxMessages;
		}

		public void setBatchMaxMessages(int batchMaxMessages) {
			this.batchMaxMessages = batchMaxMessages;
		}

		public Duration getBatchMaxWait() {
			return this.batchMaxWait;
		}

		public void setBatchMaxWait(Duration batchMaxWait) {
			this.batchMaxWait = batchMaxWait;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

	}

	/**
	 * Delays between the attempts of a failing message: exponential, with jitter.
	 */
	public static class Backoff {

		/**
		 * Delay before the second attempt; each later delay is the previous one times the multiplier.
		 */
		private Duration delay = Duration.ofSeconds(1);

		/**
		 * Factor by which the delay grows per attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest delay between attempts.
		 */
		private Duration maxDelay = Duration.ofMinutes(5);

		/**
		 * Random spread of each delay (growing with the delay as it grows), so that messages that failed together
		 * are not all retried at the same moment; never below the first delay nor above the longest. Default a
		 * quarter of the delay.
		 */
		private @Nullable Duration jitter;

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			this.delay = delay;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public @Nullable Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Duration jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * The wake-up timer that wakes consumers when messages fall due.
	 */
	public static class WakeUp {

		/**
		 * Tick of the wheel timer that wakes consumers near due times; the last tick or two are timed precisely.
		 */
		private Duration tick = Duration.ofMillis(10);

		/**
		 * Interval of the fallback poll that covers lost wake-ups and expired leases.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * Whether the wake-up timer starts with the application context.
		 */
		private boolean autoStartup = true;

		public Duration getTick() {
			return this.tick;
		}

		public void setTick(Duration tick) {
			this.tick = tick;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

	}

	/**
	 * Bounds of each topic's dead letters; the oldest beyond either bound are deleted as new ones arrive.
	 */
	public static class DeadLetter {

		/**
		 * Most dead letters kept per topic.
		 */
		private long maxCount = 10_000;

		/**
		 * How long a dead letter is kept.
		 */
		private Duration maxAge = Duration.ofDays(14);

		public long getMaxCount() {
			return this.maxCount;
		}

		public void setMaxCount(long maxCount) {
			this.maxCount = maxCount;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

}
