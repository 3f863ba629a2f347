package io.github.delayqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * Drives an application's delayed queue in tests: moves time forward for a topic on the Redis clock, fires one
 * message now, waits until a topic is idle, and tells what its listeners received.
 * <p>
 * Due times live on the Redis server's clock, so time travel happens there, through the queue's own operations: what
 * is due within a duration is listed (the admin's {@code listWaiting}) and rescheduled to be due now
 * ({@code reschedule}), one
 * atomic script per message, as an operator could. The application's properties, its clock and the queue's scripts
 * stay as they are: an order timeout of 30 minutes stays 30 minutes, and a test makes those 30 minutes pass.
 * Partitioned topics work the same (listing merges the partitions, a reschedule goes to the message's own).
 * <p>
 * The tester acts at once, even inside a test's transaction: it works on the application's {@link RedisMessageStore}
 * through a queue of its own, which never waits for a commit, and reads through the application's
 * {@link DelayedQueueAdmin}. With Spring Boot, {@code @DelayQueueTest} or
 * {@code @AutoConfigureDelayQueueTester} provides one as a bean.
 *
 * <pre class="code">
 * orders.create("alice", new BigDecimal("42.50"));     // schedules an order-timeout in 30 minutes
 * tester.advance("order-timeout", Duration.ofMinutes(30));
 * tester.awaitIdle("order-timeout");
 * assertThat(tester.received("order-timeout")).singleElement()
 *     .satisfies((call) -&gt; assertThat(call.succeeded()).isTrue());
 * </pre>
 *
 * @since 1.0.0
 */
public final class DelayQueueTester {

	/** How long {@link #awaitIdle(String)} waits by default. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(10);

	private final RedisDelayedQueue queue;

	private final RedisMessageStore store;

	private final TopicPartitioning partitioning;

	private final DelayedQueueAdmin admin;

	private final RedisConnectionFactory connectionFactory;

	private final ListenerRecorder recorder;

	/**
	 * Creates a tester of the application's queue.
	 * @param store the application's store (its key prefix and Redis)
	 * @param converter the application's payload converter
	 * @param partitioning the application's topic partitioning
	 * @param admin the application's admin, through which the tester lists, looks up and counts
	 * @param connectionFactory the application's Redis, whose clock the tester reads
	 * @param recorder the recorder of what the application's listeners received
	 * @since 1.0.0
	 */
	public DelayQueueTester(RedisMessageStore store, PayloadConverter converter, TopicPartitioning partitioning,
			DelayedQueueAdmin admin, RedisConnectionFactory connectionFactory, ListenerRecorder recorder) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.notNull(recorder, "ListenerRecorder must not be null");
		this.admin = admin;
		this.store = store;
		this.partitioning = partitioning;
		this.queue = new RedisDelayedQueue(store, converter);
		this.queue.setPartitioning(partitioning);
		this.queue.setTransactionAware(false);
		this.connectionFactory = connectionFactory;
		this.recorder = recorder;
	}

	/**
	 * Time travel for one topic: every message waiting in it (scheduled, or waiting for a retry) that is due within
	 * the duration from now on the Redis clock becomes due now, and its listeners get it at once. Messages due
	 * later keep their due times; messages due already, in flight or dead are left alone. A subscription's full name
	 * ({@code <topic>@<subscription>}) advances its own copies, such as those waiting for a retry.
	 * @param topic the topic, or a subscription's full name
	 * @param duration how far to look ahead, zero or more
	 * @return how many messages became due now
	 */
	public int advance(String topic, Duration duration) {
		Assert.hasText(topic, "Topic must not be empty");
		Assert.isTrue(duration != null && !duration.isNegative(),
				() -> "Duration must not be negative, but was " + duration);
		Instant now = redisTime();
		List<String> due = new ArrayList<>();
		// every page first, then the reschedules: a message made due now must not come back on a later page
		WaitingQuery query = WaitingQuery.first(WaitingQuery.MAX_LIMIT)
			.from(now.plus(1, ChronoUnit.MICROS))
			.to(now.plus(duration));
		MessagePage page = this.admin.listWaiting(topic, query);
		while (true) {
			page.messages().stream().map(MessageInfo::id).forEach(due::add);
			if (page.nextCursor() == null) {
				break;
			}
			page = this.admin.listWaiting(topic, query.after(page.nextCursor()));
		}
		int moved = 0;
		for (String id : due) {
			if (dueNow(topic, id)) {
				moved++;
			}
		}
		return moved;
	}

	/**
	 * Makes a waiting message due now: in a topic through the queue; in a subscription (its own copy, such as one
	 * waiting for a retry) in the subscription's sets, in the partition of its topic the id belongs to.
	 */
	private boolean dueNow(String topic, String id) {
		if (TopicKeys.subscriptionOf(topic) == null) {
			return this.queue.reschedule(topic, id, Duration.ZERO);
		}
		int partition = this.partitioning.partitionOf(TopicKeys.topicOf(topic), id);
		return this.store.messages().reschedule(TopicKeys.partitionName(topic, partition), id, DueTime.in(0));
	}

	/**
	 * Time travel for every known topic (each topic scheduled to or consumed from): {@link #advance(String, Duration)}
	 * for each.
	 * @param duration how far to look ahead, zero or more
	 * @return how many messages became due now, over all topics
	 */
	public int advanceAll(Duration duration) {
		int moved = 0;
		for (String topic : this.admin.knownTopics()) {
			moved += advance(topic, duration);
		}
		return moved;
	}

	/**
	 * Makes one waiting message (scheduled, or waiting for a retry) due now, however far away its due time is.
	 * @param topic the topic
	 * @param id the message id
	 * @throws IllegalStateException if no message with this id is waiting (it is unknown, in flight, dead or gone)
	 */
	public void fireNow(String topic, String id) {
		if (!dueNow(topic, id)) {
			String state = this.queue.lookup(topic, id).map((info) -> "it is " + info.state()).orElse("there is none");
			throw new IllegalStateException(
					"Message '" + id + "' of topic '" + topic + "' is not waiting, so it cannot fire now: " + state);
		}
	}

	/**
	 * Waits up to {@link #DEFAULT_TIMEOUT} until a topic is idle: see {@link #awaitIdle(String, Duration)}.
	 * @param topic the topic
	 * @return the topic's counts once idle
	 * @throws AssertionError if it is not idle in time
	 */
	public TopicStats awaitIdle(String topic) {
		return awaitIdle(topic, DEFAULT_TIMEOUT);
	}

	/**
	 * Waits until a topic is idle: no message due and unclaimed, none in flight (every handler finished and its
	 * outcome stored), and every listener call recorded with its outcome. For a subscription's full name, also no
	 * message of its topic due and not yet fanned out; for a topic with subscriptions, each of them idle too. Messages due later may wait; retries wait
	 * for their back-off (advance the topic to have them delivered).
	 * @param topic the topic
	 * @param timeout how long to wait at most
	 * @return the topic's counts once idle
	 * @throws AssertionError if it is not idle in time, saying what is left
	 */
	public TopicStats awaitIdle(String topic, Duration timeout) {
		Assert.hasText(topic, "Topic must not be empty");
		Assert.notNull(timeout, "Timeout must not be null");
		AtomicReference<TopicStats> last = new AtomicReference<>();
		try {
			Awaitility.await("topic '" + topic + "' to be idle")
				.atMost(timeout)
				.pollDelay(Duration.ZERO)
				.pollInterval(POLL_INTERVAL)
				.until(() -> {
					TopicStats stats = this.admin.stats(topic);
					last.set(stats);
					return stats.ready() == 0 && stats.inflight() == 0 && this.recorder.unsettled(topic).isEmpty()
							&& noneDueInItsTopic(topic) && itsSubscriptionsIdle(topic);
				});
			return last.get();
		}
		catch (ConditionTimeoutException ex) {
			TopicStats stats = last.get();
			String counts = (stats != null) ? stats.ready() + " ready, " + stats.inflight() + " in flight"
					: "no counts read";
			String paused = this.admin.controls(topic).paused() ? " (the topic is paused)" : "";
			throw new AssertionError("Topic '" + topic + "' was not idle within " + timeout + paused + ": " + counts
					+ "; listener calls not settled: " + this.recorder.unsettled(topic), ex);
		}
	}

	/** For a topic with subscriptions: each of them idle too (its messages are theirs). */
	private boolean itsSubscriptionsIdle(String name) {
		if (TopicKeys.subscriptionOf(name) != null) {
			return true;
		}
		for (String subscription : this.admin.subscriptions(name).keySet()) {
			String full = name + Topics.SUBSCRIPTION_SEPARATOR + subscription;
			TopicStats stats = this.admin.stats(full);
			if (stats.ready() > 0 || stats.inflight() > 0 || !this.recorder.unsettled(full).isEmpty()) {
				return false;
			}
		}
		return true;
	}

	/** For a subscription: no message of its topic is due and still waiting to fan out to it. */
	private boolean noneDueInItsTopic(String name) {
		return TopicKeys.subscriptionOf(name) == null || this.admin.stats(TopicKeys.topicOf(name)).ready() == 0;
	}

	/**
	 * The calls of a topic's listeners that have finished, in the order they started (see
	 * {@link ListenerRecorder#received(String)}).
	 * @param topic the topic
	 * @return the calls
	 */
	public List<ReceivedMessage> received(String topic) {
		return this.recorder.received(topic);
	}

	/**
	 * The payloads a topic's listeners received, in the order the calls started.
	 * @param <T> the type
	 * @param topic the topic
	 * @param type the payload type the listeners received (or a supertype)
	 * @return the payloads
	 */
	public <T> List<T> payloads(String topic, Class<T> type) {
		return this.recorder.payloads(topic, type);
	}

	/**
	 * The recorder of what the listeners received.
	 * @return the recorder
	 */
	public ListenerRecorder recorder() {
		return this.recorder;
	}

	/**
	 * The admin the tester reads through (the application's): counts, look-up and listing by due time, dead letters,
	 * acting at once.
	 * @return the admin
	 */
	public DelayedQueueAdmin admin() {
		return this.admin;
	}

	/**
	 * The Redis server's clock now, to the microsecond: the clock due times are measured on.
	 * @return the time
	 */
	public Instant redisTime() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long micros = connection.serverCommands().time(TimeUnit.MICROSECONDS);
			Assert.state(micros != null, "Redis returned no time");
			return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
		}
	}

}
