package io.github.delayqueue.core;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.MessageGroups;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.ControlOperations.ControlState;
import io.github.delayqueue.redis.ControlOperations.GroupState;
import io.github.delayqueue.redis.DueCounts;
import io.github.delayqueue.redis.TopicKeys;
import io.github.delayqueue.redis.Position;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.StoredDeadLetter;
import io.github.delayqueue.redis.StoredEntry;
import io.github.delayqueue.redis.StoredMessage;
import io.github.delayqueue.redis.TopicCounts;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The {@link DelayedQueueAdmin} on Redis: reads and changes a topic across its partitions, at once (never through a
 * transaction): counts, dead letters, look-up and listing of messages, and the topic's controls (pause, rate limit,
 * concurrency cap), which live in Redis so that every instance follows them.
 *
 * @since 0.3.0
 */
public class RedisDelayedQueueAdmin implements DelayedQueueAdmin {

	private static final int MAX_DEAD_LETTER_PAGE = 1000;

	/** How deep the dead letters of a topic of several partitions can be paged (each partition reads that many). */
	private static final int MAX_DEAD_LETTER_WINDOW = 10_000;

	private final RedisMessageStore store;

	private final PartitionRouter router;

	private final MessageInfos infos;

	private final GroupCounting groupCounting;

	/**
	 * Creates the admin of a store's topics.
	 * @param store the Redis store
	 * @param converter reads payloads of the messages it finds into types
	 */
	public RedisDelayedQueueAdmin(RedisMessageStore store, PayloadConverter converter) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		this.store = store;
		this.router = new PartitionRouter(store.partitions());
		this.infos = new MessageInfos(store, converter, this.router);
		this.groupCounting = new GroupCounting(store, this.router);
	}

	/**
	 * Sets how many partitions each topic has, as the application's producers and consumers use it (reads and
	 * changes follow the count Redis keeps; a message's id is placed with this).
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		this.router.setPartitioning(partitioning);
	}

	@Override
	public TopicStats stats(String topic) {
		Topics.validateTopicOrSubscription(topic);
		long waiting = 0;
		long ready = 0;
		long leased = 0;
		long dead = 0;
		long retrying = 0;
		Instant nextDueAt = null;
		for (String partition : this.router.partitionNames(topic)) {
			TopicCounts counts = this.store.messages().stats(partition);
			waiting += counts.waiting();
			ready += counts.ready();
			leased += counts.leased();
			dead += counts.dead();
			retrying += counts.retrying();
			Instant next = counts.nextDueAt();
			if (next != null && (nextDueAt == null || next.isBefore(nextDueAt))) {
				nextDueAt = next;
			}
		}
		return new TopicStats(topic, waiting, ready, leased, retrying, dead, nextDueAt);
	}

	@Override
	public DueHistogram countDue(String topic, Instant from, Instant to, int windows) {
		Topics.validateTopicOrSubscription(topic);
		Assert.notNull(from, "From must not be null");
		Assert.notNull(to, "To must not be null");
		Assert.isTrue(windows >= 1 && windows <= DueHistogram.MAX_WINDOWS,
				() -> "Windows must be between 1 and " + DueHistogram.MAX_WINDOWS + ", but was " + windows);
		long start = ChronoUnit.MICROS.between(Instant.EPOCH, from);
		long end = ChronoUnit.MICROS.between(Instant.EPOCH, to);
		Assert.isTrue(end - start >= windows, () -> "The span from " + from + " to " + to + " must be later and hold "
				+ "at least a microsecond per window (" + windows + ")");
		// equal windows to the microsecond, due times' own precision: the last edge is 'to' exactly
		BigInteger span = BigInteger.valueOf(end - start);
		List<Instant> edges = new ArrayList<>(windows + 1);
		for (int i = 0; i <= windows; i++) {
			long offset = span.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(windows)).longValueExact();
			edges.add(Instant.EPOCH.plus(start + offset, ChronoUnit.MICROS));
		}
		long[] counts = new long[windows];
		long before = 0;
		long after = 0;
		for (String partition : this.router.partitionNames(topic)) {
			DueCounts partitionCounts = this.store.messages().countDue(partition, edges);
			before += partitionCounts.before();
			after += partitionCounts.after();
			for (int i = 0; i < windows; i++) {
				counts[i] += partitionCounts.windows().get(i);
			}
		}
		List<DueHistogram.Window> counted = new ArrayList<>(windows);
		for (int i = 0; i < windows; i++) {
			counted.add(new DueHistogram.Window(edges.get(i), edges.get(i + 1), counts[i]));
		}
		return new DueHistogram(topic, edges.get(0), edges.get(windows), counted, before, after);
	}

	@Override
	public Set<String> knownTopics() {
		return this.store.topics().all();
	}

	@Override
	public int partitions(String topic) {
		Topics.validateTopicOrSubscription(topic);
		// a subscription has its topic's
		return this.store.partitions().of(TopicKeys.topicOf(topic));
	}

	@Override
	public SortedMap<String, Instant> subscriptions(String topic) {
		Topics.validate(topic);
		return new TreeMap<>(this.store.subscriptions().of(topic));
	}

	@Override
	public boolean declareSubscription(String topic, String subscription) {
		Topics.validate(topic);
		Topics.validateSubscription(subscription);
		// the partition count Redis keeps is settled first, so that every partition gets the subscription
		this.router.check(topic);
		boolean added = false;
		for (String partition : this.router.partitionNames(topic)) {
			added |= this.store.subscriptions().declare(partition, subscription);
		}
		// known, so that its controls may be set before its listeners start
		this.store.topics().register(List.of(Topics.subscriptionName(topic, subscription)));
		return added;
	}

	@Override
	public boolean removeSubscription(String topic, String subscription) {
		Topics.validate(topic);
		Topics.validateSubscription(subscription);
		this.router.check(topic);
		boolean declared = this.store.subscriptions().of(topic).containsKey(subscription);
		for (String partition : this.router.partitionNames(topic)) {
			this.store.subscriptions().remove(partition, subscription);
		}
		this.store.topics().forget(Topics.subscriptionName(topic, subscription));
		return declared;
	}

	@Override
	public void changePartitions(String topic, int partitions) {
		Topics.validate(topic);
		Assert.isTrue(partitions >= 1 && partitions <= TopicPartitioning.MAX_PARTITIONS,
				() -> "Partitions must be between 1 and " + TopicPartitioning.MAX_PARTITIONS + ", but was " + partitions);
		TopicControlState before = controls(topic);
		Set<String> subscriptions = this.store.subscriptions().of(topic).keySet();
		this.router.change(topic, partitions);
		// each partition keeps its own list: the new ones get the topic's
		for (String partition : this.router.partitionNames(topic)) {
			subscriptions.forEach((name) -> this.store.subscriptions().declare(partition, name));
		}
		// the controls are kept per partition: the new partitions take their shares of what the topic had
		if (before.limits().isLimited()) {
			applyLimits(topic, before.limits());
		}
		if (before.paused()) {
			this.router.partitionNames(topic).forEach(this.store.controls()::pause);
		}
	}

	@Override
	public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
		Topics.validateTopicOrSubscription(topic);
		Assert.isTrue(offset >= 0, () -> "Offset must not be negative, but was " + offset);
		Assert.isTrue(limit >= 1 && limit <= MAX_DEAD_LETTER_PAGE,
				() -> "Limit must be between 1 and " + MAX_DEAD_LETTER_PAGE + ", but was " + limit);
		List<String> partitions = this.router.partitionNames(topic);
		Assert.isTrue(partitions.size() == 1 || offset <= MAX_DEAD_LETTER_WINDOW - limit,
				() -> "A topic of several partitions lists its first " + MAX_DEAD_LETTER_WINDOW
						+ " dead letters at most (offset + limit), but offset was " + offset);
		if (partitions.size() == 1) {
			return this.store.deadLetters()
				.list(partitions.get(0), offset, limit)
				.stream()
				.map((letter) -> toDeadLetter(topic, letter))
				.toList();
		}
		// oldest first across partitions: the page is among the first offset + limit of each
		List<StoredDeadLetter> merged = new ArrayList<>();
		for (String partition : partitions) {
			merged.addAll(this.store.deadLetters().list(partition, 0, offset + limit));
		}
		merged.sort(Comparator.comparing(StoredDeadLetter::diedAt).thenComparing(StoredDeadLetter::id));
		return merged.stream().skip(offset).limit(limit).map((letter) -> toDeadLetter(topic, letter)).toList();
	}

	private static DeadLetter toDeadLetter(String topic, StoredDeadLetter letter) {
		StoredMessage message = letter.message();
		String error = letter.error();
		if (!message.isReadable()) {
			error = MessageInfos.unreadable(message, error);
		}
		return new DeadLetter(letter.id(), topic, letter.attempts(), error, letter.diedAt(), message.createdAt(),
				message.headers(), message.payload());
	}

	@Override
	public boolean replayDeadLetter(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		return this.store.deadLetters().replay(this.router.partitionOf(topic, id), id);
	}

	@Override
	public long replayDeadLetters(String topic) {
		Topics.validateTopicOrSubscription(topic);
		return this.router.partitionNames(topic).stream().mapToLong(this.store.deadLetters()::replayAll).sum();
	}

	@Override
	public boolean purgeDeadLetter(String topic, String id) {
		Topics.validateTopicOrSubscription(topic);
		MessageIds.validate(id);
		return this.store.deadLetters().purge(this.router.partitionOf(topic, id), id);
	}

	@Override
	public long purgeDeadLetters(String topic) {
		Topics.validateTopicOrSubscription(topic);
		return this.router.partitionNames(topic).stream().mapToLong(this.store.deadLetters()::purgeAll).sum();
	}

	@Override
	public Optional<MessageInfo> lookup(String topic, String id) {
		return this.infos.lookup(topic, id);
	}

	@Override
	public MessagePage listWaiting(String topic, WaitingQuery query) {
		Topics.validateTopicOrSubscription(topic);
		Assert.notNull(query, "Query must not be null");
		Position after = (query.cursor() != null) ? decodeCursor(query.cursor()) : null;
		List<StoredEntry> merged = new ArrayList<>();
		List<String> partitions = this.router.partitionNames(topic);
		for (String partition : partitions) {
			merged.addAll(this.store.messages().waiting(partition, query.from(), query.to(), after, query.limit()));
		}
		if (partitions.size() > 1) {
			merged.sort(Comparator.comparing(StoredEntry::position));
		}
		List<StoredEntry> page = (merged.size() > query.limit()) ? merged.subList(0, query.limit()) : merged;
		List<MessageInfo> messages = page.stream().map((entry) -> this.infos.toInfo(topic, entry)).toList();
		// a full page may have a next one; its cursor is the last message's position
		String next = (page.size() == query.limit()) ? encodeCursor(page.get(page.size() - 1).position()) : null;
		return new MessagePage(messages, next);
	}

	private static String encodeCursor(Position position) {
		return Base64.getUrlEncoder()
			.withoutPadding()
			.encodeToString((position.score() + "\n" + position.id()).getBytes(StandardCharsets.UTF_8));
	}

	private static Position decodeCursor(String cursor) {
		try {
			String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			int newline = text.indexOf('\n');
			Assert.isTrue(newline > 0, "no separator");
			return new Position(text.substring(0, newline), text.substring(newline + 1));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Not a cursor that listWaiting returned: '" + cursor + "'", ex);
		}
	}

	@Override
	public TopicControlState pause(String topic) {
		requireKnown(topic);
		this.router.partitionNames(topic).forEach(this.store.controls()::pause);
		return controls(topic);
	}

	@Override
	public TopicControlState resume(String topic) {
		requireKnown(topic);
		this.router.partitionNames(topic).forEach(this.store.controls()::resume);
		return controls(topic);
	}

	@Override
	public TopicControlState setLimits(String topic, TopicLimits limits) {
		Assert.notNull(limits, "Limits must not be null");
		requireKnown(topic);
		applyLimits(topic, limits);
		return controls(topic);
	}

	/** Gives each partition its share of the limits; the shares add up to them. */
	private void applyLimits(String topic, TopicLimits limits) {
		List<String> partitions = this.router.partitionNames(topic);
		int count = partitions.size();
		Integer cap = limits.maxInFlight();
		Assert.isTrue(cap == null || cap >= count, () -> "Topic '" + topic + "' has " + count + " partitions, so its "
				+ "cap must allow at least one message in flight per partition, but was " + cap);
		Double rate = limits.ratePerSecond();
		for (int partition = 0; partition < count; partition++) {
			Double share = (rate != null) ? rate / count : null;
			Long capShare = (cap != null) ? (long) (cap / count + ((partition < cap % count) ? 1 : 0)) : null;
			this.store.controls().limit(partitions.get(partition), share, (share != null) ? Math.max(1, share) : 1,
					capShare);
		}
	}

	@Override
	public GroupControlState pauseGroup(String topic, String group) {
		MessageGroups.validate(group);
		requireKnown(topic);
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().pauseGroup(partition, group));
		return groupControls(topic, group);
	}

	@Override
	public GroupControlState resumeGroup(String topic, String group) {
		MessageGroups.validate(group);
		requireKnown(topic);
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().resumeGroup(partition, group));
		return groupControls(topic, group);
	}

	@Override
	public GroupControlState setGroupCap(String topic, @Nullable String group, @Nullable Integer cap) {
		if (group != null) {
			MessageGroups.validate(group);
		}
		Assert.isTrue(cap == null || cap >= 1,
				() -> "Group cap must be at least 1, but was " + cap + " (pause the group to stop its deliveries)");
		requireKnown(topic);
		List<String> partitions = this.router.partitionNames(topic);
		int count = partitions.size();
		Assert.isTrue(cap == null || cap >= count, () -> "Topic '" + topic + "' has " + count + " partitions, so a "
				+ "group's cap must allow at least one message in flight per partition, but was " + cap);
		for (int partition = 0; partition < count; partition++) {
			Long share = (cap != null) ? (long) (cap / count + ((partition < cap % count) ? 1 : 0)) : null;
			this.store.controls().capGroup(partitions.get(partition), group, share);
		}
		return (group != null) ? groupControls(topic, group)
				: new GroupControlState(topic, null, false, null, cap, 0, 0);
	}

	@Override
	public GroupControlState setGroupRate(String topic, @Nullable String group, @Nullable Double ratePerSecond) {
		if (group != null) {
			MessageGroups.validate(group);
		}
		Assert.isTrue(ratePerSecond == null || (ratePerSecond > 0 && Double.isFinite(ratePerSecond)),
				() -> "Group rate limit must be positive, but was " + ratePerSecond
						+ " (pause the group to stop its deliveries)");
		requireKnown(topic);
		List<String> partitions = this.router.partitionNames(topic);
		Double share = (ratePerSecond != null) ? ratePerSecond / partitions.size() : null;
		for (String partition : partitions) {
			this.store.controls().rateGroup(partition, group, share);
		}
		return (group != null) ? groupControls(topic, group)
				: new GroupControlState(topic, null, false, null, null, 0, 0, null, ratePerSecond);
	}

	@Override
	public MessagePriorities.PriorityMode setPriorityMode(String topic, MessagePriorities.PriorityMode mode) {
		Assert.isTrue(mode != null, "Priority mode must not be null");
		requireKnown(topic);
		boolean strict = mode == MessagePriorities.PriorityMode.STRICT;
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().priorityMode(partition, strict));
		return priorityMode(topic);
	}

	@Override
	public MessagePriorities.PriorityMode priorityMode(String topic) {
		Topics.validateTopicOrSubscription(topic);
		// every partition is set together: the first one says
		return this.store.controls().priorityMode(this.router.partitionNames(topic).get(0), null)
				? MessagePriorities.PriorityMode.STRICT : MessagePriorities.PriorityMode.WEIGHTED;
	}

	@Override
	public GroupControlState setGroupWeight(String topic, String group, @Nullable Integer weight) {
		MessageGroups.validate(group);
		if (weight != null) {
			MessageGroups.validateWeight(weight);
		}
		requireKnown(topic);
		this.router.partitionNames(topic)
			.forEach((partition) -> this.store.controls().weighGroup(partition, group, weight));
		return groupControls(topic, group);
	}

	@Override
	public GroupControlState groupControls(String topic, String group) {
		Topics.validateTopicOrSubscription(topic);
		MessageGroups.validate(group);
		boolean paused = false;
		Long cap = null;
		Long defaultCap = null;
		long inFlight = 0;
		long waiting = 0;
		int weight = 1;
		Double rate = null;
		Double defaultRate = null;
		for (String partition : this.router.partitionNames(topic)) {
			GroupState state = this.store.controls().readGroup(partition, group);
			if (state.weight() != null) {
				weight = Math.max(weight, state.weight());
			}
			if (state.ratePerSecond() != null) {
				rate = ((rate != null) ? rate : 0) + state.ratePerSecond();
			}
			if (state.defaultRatePerSecond() != null) {
				defaultRate = ((defaultRate != null) ? defaultRate : 0) + state.defaultRatePerSecond();
			}
			paused |= state.paused();
			if (state.cap() != null) {
				cap = ((cap != null) ? cap : 0) + state.cap();
			}
			if (state.defaultCap() != null) {
				defaultCap = ((defaultCap != null) ? defaultCap : 0) + state.defaultCap();
			}
			inFlight += state.leased();
			waiting += state.waiting();
		}
		return new GroupControlState(topic, group, paused, toInt(cap), toInt(defaultCap), inFlight, waiting, weight,
				rate, defaultRate);
	}

	@Override
	public TopGroups topGroups(String topic, int count) {
		return this.groupCounting.top(topic, count);
	}

	private static @Nullable Integer toInt(@Nullable Long value) {
		return (value != null) ? (int) Math.min(Integer.MAX_VALUE, value) : null;
	}

	/**
	 * A topic's controls may be changed only once the topic is known (scheduled to, consumed from, or registered),
	 * so that a misspelt name is refused rather than paused or limited to no effect.
	 */
	private void requireKnown(String topic) {
		Topics.validateTopicOrSubscription(topic);
		Assert.isTrue(this.store.topics().contains(topic), () -> "Topic '" + topic + "' is not known: nothing was "
				+ "ever scheduled to it or consumed from it with this key prefix (check its name)");
		// the partition count Redis keeps is settled first, so that every partition gets the change
		this.router.check(topic);
	}

	/**
	 * Registers topics as known, so that their controls may be set before anything is scheduled to them (as
	 * declared limits are, at start-up).
	 * @param topics the topics
	 */
	public void registerTopics(java.util.Collection<String> topics) {
		topics.forEach(Topics::validateTopicOrSubscription);
		this.store.topics().register(topics);
	}

	@Override
	public TopicControlState controls(String topic) {
		Topics.validateTopicOrSubscription(topic);
		boolean paused = false;
		Double rate = null;
		Long cap = null;
		for (String partition : this.router.partitionNames(topic)) {
			ControlState state = this.store.controls().read(partition);
			paused |= state.paused();
			if (state.ratePerSecond() != null) {
				rate = ((rate != null) ? rate : 0) + state.ratePerSecond();
			}
			if (state.cap() != null) {
				cap = ((cap != null) ? cap : 0) + state.cap();
			}
		}
		// the shares add up to the rate set, but for the last digits of a double
		Double total = (rate != null) ? Math.round(rate * 1e6) / 1e6 : null;
		return new TopicControlState(topic, paused,
				new TopicLimits(total, (cap != null) ? (int) Math.min(Integer.MAX_VALUE, cap) : null));
	}

}
