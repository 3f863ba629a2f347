package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.delayqueue.MessageGroups;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.Topics;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.recurring.RecurringSchedule;
import io.github.delayqueue.recurring.RedisRecurringSchedules;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.backoff.BackOff;

/**
 * Maps the {@code delayqueue.*} properties onto the parts they configure: the one place where a property becomes a
 * setting. The parts check their own values; a value they reject fails start-up with Spring Boot's
 * {@link InvalidConfigurationPropertyValueException}, which names the property, the value and the reason.
 */
final class DelayQueuePropertiesMapper {

	private static final String LISTENER = "delayqueue.listener.";

	private static final String BACKOFF = LISTENER + "backoff.";

	private static final String WAKE_UP = "delayqueue.wake-up.";

	private static final Duration ONE_MILLI = Duration.ofMillis(1);

	private final DelayQueueProperties properties;

	DelayQueuePropertiesMapper(DelayQueueProperties properties) {
		this.properties = properties;
	}

	RedisMessageStore messageStore(RedisConnectionFactory connectionFactory) {
		String keyPrefix = this.properties.getKeyPrefix();
		check("delayqueue.key-prefix", keyPrefix, (prefix) -> {
			TopicKeys.validatePrefix(prefix);
			return prefix;
		});
		RedisMessageStore store = new RedisMessageStore(connectionFactory, keyPrefix, deadLetterPolicy());
		store.setRedisFunctions(this.properties.isRedisFunctions());
		check("delayqueue.stored-format", this.properties.getStoredFormat(), (format) -> {
			store.setStoredFormat(format);
			return format;
		});
		DelayQueueProperties.Durability durability = this.properties.getDurability();
		check("delayqueue.durability.replicas", durability.getReplicas(), (replicas) -> {
			if (replicas < 0) {
				throw new IllegalArgumentException("must not be negative");
			}
			return replicas;
		});
		check("delayqueue.durability.timeout", durability.getTimeout(), (timeout) -> {
			store.setReplicaAcknowledgement(durability.getReplicas(), timeout);
			return timeout;
		});
		return store;
	}

	private DeadLetterPolicy deadLetterPolicy() {
		DelayQueueProperties.DeadLetter deadLetter = this.properties.getDeadLetter();
		check("delayqueue.dead-letter.max-count", deadLetter.getMaxCount(),
				(maxCount) -> new DeadLetterPolicy(maxCount, DeadLetterPolicy.DEFAULT.maxAge()));
		return check("delayqueue.dead-letter.max-age", deadLetter.getMaxAge(),
				(maxAge) -> new DeadLetterPolicy(deadLetter.getMaxCount(), maxAge));
	}

	RedisDelayedQueue delayedQueue(RedisMessageStore store, PayloadConverter converter) {
		RedisDelayedQueue queue = check("delayqueue.max-payload-size", this.properties.getMaxPayloadSize(),
				(maxPayloadSize) -> new RedisDelayedQueue(store, converter, maxPayloadSize));
		queue.setTransactionAware(this.properties.isTransactionAware());
		return queue;
	}

	WakeUpTimer wakeUpTimer(RedisConnectionFactory connectionFactory) {
		DelayQueueProperties.WakeUp wakeUp = this.properties.getWakeUp();
		Duration tick = wakeUp.getTick();
		check(WAKE_UP + "tick", tick, (value) -> new WakeUpTimer(connectionFactory, value,
				WakeUpTimer.DEFAULT_POLL_INTERVAL));
		WakeUpTimer bean = check(WAKE_UP + "poll-interval", wakeUp.getPollInterval(),
				(poll) -> new WakeUpTimer(connectionFactory, tick, poll));
		bean.setAutoStartup(wakeUp.isAutoStartup());
		return bean;
	}

	TopicPartitioning topicPartitioning() {
		Map<String, Integer> partitions = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			String name = "delayqueue.topics." + topic + ".partitions";
			if (topic.indexOf(Topics.SUBSCRIPTION_SEPARATOR) >= 0) {
				// a subscription's settings (its controls): it has its topic's partitions
				check(name, topic, (value) -> Topics.validateTopicOrSubscription(value));
				check(name, settings.getPartitions(), (count) -> {
					if (count != 1) {
						throw new IllegalArgumentException("a subscription has its topic's partitions: set them on "
								+ "the topic");
					}
					return count;
				});
				return;
			}
			check(name, topic, (value) -> Topics.validate(value));
			check(name, settings.getPartitions(),
					(count) -> new TopicPartitioning(Map.of(topic, count)));
			partitions.put(topic, settings.getPartitions());
		});
		return new TopicPartitioning(partitions);
	}

	/**
	 * The limits the properties declare, per topic that declares one.
	 * @return the limits
	 */
	Map<String, TopicLimits> topicLimits() {
		Map<String, TopicLimits> limits = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			Double rate = settings.getRateLimit();
			Integer cap = settings.getMaxInFlight();
			if (rate != null || cap != null) {
				String prefix = "delayqueue.topics." + topic + ".";
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validateTopicOrSubscription(value));
				limits.put(topic, check(prefix + ((rate != null) ? "rate-limit" : "max-in-flight"), (rate != null) ? rate : cap,
						(value) -> new TopicLimits(rate, cap)));
			}
		});
		return limits;
	}

	/**
	 * The group caps the properties declare, per topic that declares one: the default of its groups and the caps of
	 * single groups.
	 * @return the caps
	 */
	Map<String, TopicLimitsInitializer.GroupCaps> groupCaps() {
		Map<String, TopicLimitsInitializer.GroupCaps> caps = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			String prefix = "delayqueue.topics." + topic + ".";
			Integer defaultCap = settings.getGroupMaxInFlight();
			check(prefix + "group-max-in-flight", defaultCap, TopicLimitsInitializer::checkCap);
			Double defaultRate = settings.getGroupRateLimit();
			check(prefix + "group-rate-limit", defaultRate, TopicLimitsInitializer::checkRate);
			Map<String, Double> rates = new LinkedHashMap<>();
			Map<String, Integer> groups = new LinkedHashMap<>();
			settings.getGroups().forEach((group, groupSettings) -> {
				check(prefix + "groups", group, (value) -> {
					MessageGroups.validate(value);
					return value;
				});
				Integer cap = groupSettings.getMaxInFlight();
				check(prefix + "groups." + group + ".max-in-flight", cap, TopicLimitsInitializer::checkCap);
				if (cap != null) {
					groups.put(group, cap);
				}
				Double rate = groupSettings.getRateLimit();
				check(prefix + "groups." + group + ".rate-limit", rate, TopicLimitsInitializer::checkRate);
				if (rate != null) {
					rates.put(group, rate);
				}
			});
			if (defaultCap != null || !groups.isEmpty() || defaultRate != null || !rates.isEmpty()) {
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validateTopicOrSubscription(value));
				caps.put(topic, new TopicLimitsInitializer.GroupCaps(defaultCap, groups, defaultRate, rates));
			}
		});
		return caps;
	}

	/**
	 * The subscriptions the properties declare, per topic that declares any.
	 * @return the subscriptions' own names, by topic
	 */
	Map<String, List<String>> subscriptions() {
		Map<String, List<String>> declared = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			if (!settings.getSubscriptions().isEmpty()) {
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validate(value));
				List<String> names = new ArrayList<>();
				for (String subscription : settings.getSubscriptions()) {
					names.add(check("delayqueue.topics." + topic + ".subscriptions", subscription.trim(),
							(value) -> Topics.validateSubscription(value)));
				}
				declared.put(topic, List.copyOf(names));
			}
		});
		return declared;
	}

	/**
	 * The priority modes the properties declare, per topic that declares one.
	 * @return the modes
	 */
	Map<String, MessagePriorities.PriorityMode> priorityModes() {
		Map<String, MessagePriorities.PriorityMode> modes = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			MessagePriorities.PriorityMode mode = settings.getPriorityMode();
			if (mode != null) {
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validateTopicOrSubscription(value));
				modes.put(topic, mode);
			}
		});
		return modes;
	}

	/**
	 * The group weights the properties declare, per topic that declares one.
	 * @return the weights by group, by topic
	 */
	Map<String, Map<String, Integer>> groupWeights() {
		Map<String, Map<String, Integer>> weights = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			String prefix = "delayqueue.topics." + topic + ".groups.";
			Map<String, Integer> groups = new LinkedHashMap<>();
			settings.getGroups().forEach((group, groupSettings) -> {
				Integer weight = groupSettings.getWeight();
				if (weight != null) {
					check(prefix + group + ".weight", weight, (value) -> {
						MessageGroups.validateWeight(value);
						return value;
					});
					groups.put(group, weight);
				}
			});
			if (!groups.isEmpty()) {
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validateTopicOrSubscription(value));
				weights.put(topic, groups);
			}
		});
		return weights;
	}

	/** The most groups a topic may name for group tags on its meters. */
	static final int MAX_METRICS_GROUPS = 100;

	/**
	 * The groups whose messages get a group tag of their own on the delivery meters, per topic that names some.
	 * @return the group keys by topic
	 */
	Map<String, List<String>> metricsGroups() {
		Map<String, List<String>> groups = new LinkedHashMap<>();
		this.properties.getTopics().forEach((topic, settings) -> {
			List<String> named = settings.getMetrics().getGroups();
			if (!named.isEmpty()) {
				String name = "delayqueue.topics." + topic + ".metrics.groups";
				check("delayqueue.topics." + topic, topic, (value) -> Topics.validateTopicOrSubscription(value));
				check(name, named, (value) -> {
					if (value.size() > MAX_METRICS_GROUPS) {
						throw new IllegalArgumentException("names " + value.size() + " groups, but at most "
								+ MAX_METRICS_GROUPS + " may be tagged (a series per group and meter)");
					}
					value.forEach(MessageGroups::validate);
					return value;
				});
				groups.put(topic, List.copyOf(named));
			}
		});
		return groups;
	}

	Duration metricsRefreshInterval() {
		Duration interval = this.properties.getMetrics().getRefreshInterval();
		return check("delayqueue.metrics.refresh-interval", interval, (value) -> {
			if (value == null || value.toMillis() < 100) {
				throw new IllegalArgumentException("must be at least 100ms");
			}
			return value;
		});
	}

	Duration shutdownTimeout() {
		return check(LISTENER + "shutdown-timeout", this.properties.getListener().getShutdownTimeout(), (timeout) -> {
			if (timeout == null || timeout.isNegative()) {
				throw new IllegalArgumentException("must not be negative");
			}
			return timeout;
		});
	}

	/**
	 * The default listener options the properties describe.
	 * @return the options
	 */
	ListenerOptions listenerOptions() {
		DelayQueueProperties.Listener listener = this.properties.getListener();
		ListenerOptions.Builder options = ListenerOptions.builder();
		check(LISTENER + "concurrency", listener.getConcurrency(), options::concurrency);
		check(LISTENER + "async-concurrency", listener.getAsyncConcurrency(), options::asyncConcurrency);
		check(LISTENER + "visibility-timeout", listener.getVisibilityTimeout(), options::visibilityTimeout);
		check(LISTENER + "max-attempts", listener.getMaxAttempts(), options::maxAttempts);
		Integer batchSize = listener.getBatchSize();
		check(LISTENER + "batch-size", (batchSize != null) ? batchSize : ListenerOptions.DEFAULT_BATCH_SIZE,
				options::batchSize);
		Duration handlerTimeout = listener.getHandlerTimeout();
		if (handlerTimeout != null) {
			check(LISTENER + "handler-timeout", handlerTimeout, options::handlerTimeout);
		}
		options.leaseAhead(listener.isLeaseAhead());
		check(LISTENER + "batch-max-messages", listener.getBatchMaxMessages(), options::batchMaxMessages);
		check(LISTENER + "batch-max-wait", listener.getBatchMaxWait(), options::batchMaxWait);
		options.errorHandler(new DefaultDeliveryErrorHandler(backOff(listener.getBackoff())));
		return options.build();
	}

	/** Each value is checked on its own first, so that the failure names the property at fault. */
	private static BackOff backOff(DelayQueueProperties.Backoff backoff) {
		Duration delay = backoff.getDelay();
		Duration maxDelay = backoff.getMaxDelay();
		Duration jitter = (backoff.getJitter() != null) ? backoff.getJitter() : delay.dividedBy(4);
		check(BACKOFF + "delay", delay, (value) -> DefaultDeliveryErrorHandler.exponentialBackOff(value, 1, value, Duration.ZERO));
		check(BACKOFF + "multiplier", backoff.getMultiplier(),
				(value) -> DefaultDeliveryErrorHandler.exponentialBackOff(ONE_MILLI, value, ONE_MILLI, Duration.ZERO));
		check(BACKOFF + "jitter", jitter,
				(value) -> DefaultDeliveryErrorHandler.exponentialBackOff(ONE_MILLI, 1, ONE_MILLI, value));
		return check(BACKOFF + "max-delay", maxDelay, (value) -> {
			if (value != null && value.compareTo(delay) < 0) {
				throw new IllegalArgumentException(
						"must not be less than " + BACKOFF + "delay (" + delay + ")");
			}
			return DefaultDeliveryErrorHandler.exponentialBackOff(delay, backoff.getMultiplier(), value, jitter);
		});
	}

	/**
	 * Applies a property's value; a value the part rejects fails naming the property.
	 */
	RedisRecurringSchedules recurringSchedules(RecurringStore store, RedisDelayedQueue queue,
			PayloadConverter converter) {
		DelayQueueProperties.Recurring recurring = this.properties.getRecurring();
		RedisRecurringSchedules schedules = new RedisRecurringSchedules(store, queue, converter);
		check("delayqueue.recurring.poll-interval", recurring.getPollInterval(), (interval) -> {
			schedules.setPollInterval(interval);
			return interval;
		});
		schedules.setAutoStartup(recurring.isEnabled());
		List<RecurringSchedule> declared = new ArrayList<>();
		recurring.getSchedules().forEach((name, schedule) -> declared.add(recurringSchedule(name, schedule)));
		schedules.setDeclaredSchedules(declared);
		return schedules;
	}

	private static RecurringSchedule recurringSchedule(String name, DelayQueueProperties.Schedule schedule) {
		String prefix = "delayqueue.recurring.schedules." + name + ".";
		RecurringSchedule.Builder builder = check(prefix + "topic", schedule.getTopic(),
				(topic) -> RecurringSchedule.builder(name, String.valueOf(topic)));
		if (schedule.getCron() != null) {
			check(prefix + "cron", schedule.getCron(), builder::cron);
		}
		if (schedule.getEvery() != null) {
			check(prefix + "every", schedule.getEvery(), builder::every);
		}
		check(prefix + "zone", schedule.getZone(), builder::zone);
		check(prefix + "payload", schedule.getPayload(), (payload) -> {
			if (payload == null) {
				throw new IllegalArgumentException("A payload (JSON text) is required");
			}
			return builder.payloadJson(payload);
		});
		check(prefix + "missed-ticks", schedule.getMissedTicks(), builder::missedTicks);
		check(prefix + "max-missed", schedule.getMaxMissed(), builder::maxMissed);
		return check(prefix + "cron", schedule.getCron(), (cron) -> {
			if (schedule.getCron() != null && schedule.getEvery() != null) {
				throw new IllegalArgumentException("Set cron or every, not both");
			}
			return builder.build();
		});
	}

	private static <T, R> R check(String name, T value, Function<T, R> use) {
		try {
			return use.apply(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(name, value, ex.getMessage());
		}
	}

}
