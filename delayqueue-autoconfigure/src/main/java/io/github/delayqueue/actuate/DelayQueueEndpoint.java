package io.github.delayqueue.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.recurring.RecurringScheduleInfo;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import static io.github.delayqueue.actuate.EndpointRequests.validId;
import static io.github.delayqueue.actuate.EndpointRequests.validTopic;

/**
 * The {@code delayqueue} actuator endpoint:
 * <ul>
 * <li>{@code GET /actuator/delayqueue}: every known topic with its waiting, ready, in-flight and dead counts, the
 * next due time and this application's listener for it, and every recurring schedule with its last and next
 * tick;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/dead?offset=0&limit=50}: dead letters, oldest first;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/waiting?limit=50&from=…&to=…&cursor=…}: waiting messages by due time,
 * a page at a time (the page's {@code nextCursor} gives the next);</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/due?from=…&to=…&windows=60}: the waiting messages counted exactly by
 * when they fall due, in equal windows (default: the next hour by minutes), with {@code ZCOUNT}s, no message
 * read;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/messages/{id}}: one message, in whatever state (404 if none);</li>
 * <li>{@code GET /actuator/delayqueue/{topic}}: one topic, as listed above;</li>
 * <li>{@code POST /actuator/delayqueue/{topic}/dead} replays every dead letter, {@code POST …/dead/{id}} one;</li>
 * <li>{@code POST /actuator/delayqueue/{topic}/pause} and {@code …/resume} pause and resume the topic on every
 * instance;</li>
 * <li>{@code POST /actuator/delayqueue/{topic}} with {@code {"ratePerSecond": 50, "maxInFlight": 10}} (JSON) sets
 * its limits on every instance (a field left out keeps its value, {@code 0} clears it);</li>
 * <li>{@code DELETE /actuator/delayqueue/{topic}/dead} purges every dead letter, {@code DELETE …/dead/{id}} one;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/groups/{group}}: one group's pause, caps, and messages in flight and
 * waiting;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/groups?top=20}: the groups with the most messages waiting (at most 100),
 * with their messages in flight, pause and weight, read with bounded work (see
 * {@link DelayedQueueAdmin#topGroups(String, int)});</li>
 * <li>{@code POST /actuator/delayqueue/{topic}/groups/{group}/pause} and {@code …/resume} pause and resume one group
 * on every instance; {@code POST …/groups/{group}/cap} with {@code {"maxInFlight": 2}} sets its cap ({@code 0}
 * clears it), {@code POST …/groups/{group}/rate} with {@code {"ratePerSecond": 5}} its rate limit ({@code 0} clears
 * it), and {@code "groupMaxInFlight"} and {@code "groupRatePerSecond"} in the topic's limits set the defaults of its
 * groups; {@code POST …/groups/{group}/weight} with {@code {"weight": 3}} sets its share among the groups served in
 * turn ({@code 0}: the default, 1).</li>
 * </ul>
 * Replay, purge, pause, resume and limits change data: they are closed by default (read-only access); open them with
 * {@code management.endpoint.delayqueue.access=unrestricted}, behind the application's own security.
 * <p>
 * The endpoint keeps the operations Actuator finds on it and the descriptors they answer with; {@code TopicReads}
 * does the reads behind them, {@code TopicChanges} the writes, and {@code EndpointRequests} turns a bad argument
 * into a bad request (400).
 *
 * @since 0.1.0
 */
@Endpoint(id = "delayqueue", defaultAccess = Access.READ_ONLY)
// the operations' optional parameters carry Spring's own @Nullable (deprecated in Spring Framework 7, where
// JSpecify's replaces it): the one Boot 3.5's Actuator recognises as "optional"; Boot 4 recognises either
@SuppressWarnings("deprecation")
public class DelayQueueEndpoint {

	static final String DEAD = "dead";

	private static final String WAITING = "waiting";

	private static final String MESSAGES = "messages";

	private static final String GROUPS = "groups";

	private static final String DUE = "due";

	private final TopicReads reads;

	private final TopicChanges changes;

	private @Nullable RecurringSchedules recurring;

	/**
	 * Creates the endpoint.
	 * @param admin where topics are read and changed (at once, on the store)
	 * @param registry this application's listeners, if any
	 */
	public DelayQueueEndpoint(DelayedQueueAdmin admin, @Nullable DelayedListenerEndpointRegistry registry) {
		this.reads = new TopicReads(admin, registry);
		this.changes = new TopicChanges(admin);
	}

	/**
	 * Sets the recurring schedules to list.
	 * @param recurring the schedules, or {@code null} for none
	 */
	public void setRecurringSchedules(@Nullable RecurringSchedules recurring) {
		this.recurring = recurring;
	}

	/**
	 * One topic with its counts, next due time, controls and listener.
	 * @param topic the topic
	 * @return the topic
	 */
	@ReadOperation
	public TopicDescriptor topic(@Selector String topic) {
		validTopic(topic);
		return this.reads.topic(topic);
	}

	/**
	 * Every known topic with its counts, next due time, controls and listener, and every recurring schedule.
	 * @return the topics
	 */
	@ReadOperation
	public TopicsDescriptor topics() {
		return this.reads.topics(this.recurring);
	}

	/**
	 * A part of a topic: a page of its dead letters (oldest first) or of its waiting messages (by due time), its
	 * waiting messages counted by when they fall due, or its groups with the most messages waiting.
	 * @param topic the topic
	 * @param part {@code dead}, {@code waiting}, {@code due} or {@code groups}
	 * @param offset dead letters: how many to skip (default 0)
	 * @param limit how many at most (default 50, at most 1000)
	 * @param cursor waiting messages: the previous page's {@code nextCursor}
	 * @param from waiting messages: the earliest due time listed (ISO-8601); due: the start of the first window
	 * (default now)
	 * @param to waiting messages: the latest due time listed (ISO-8601); due: the end of the last window (default an
	 * hour after {@code from})
	 * @param windows due: how many equal windows (default 60, at most 1000)
	 * @param top groups: how many groups, the most waiting first (default 20, at most 100)
	 * @return the part, or {@code null} (404) for another {@code part}
	 */
	@ReadOperation
	public @Nullable Object topicPart(@Selector String topic, @Selector String part,
			@org.springframework.lang.Nullable Integer offset, @org.springframework.lang.Nullable Integer limit,
			@org.springframework.lang.Nullable String cursor, @org.springframework.lang.Nullable Instant from,
			@org.springframework.lang.Nullable Instant to, @org.springframework.lang.Nullable Integer windows,
			@org.springframework.lang.Nullable Integer top) {
		validTopic(topic);
		return switch (part) {
			case DEAD -> this.reads.deadLetters(topic, offset, limit);
			case WAITING -> this.reads.waiting(topic, limit, from, to, cursor);
			case DUE -> this.reads.due(topic, from, to, windows);
			case GROUPS -> this.reads.topGroups(topic, top);
			default -> null;
		};
	}

	/**
	 * One message of a topic, in whatever state it is.
	 * @param topic the topic
	 * @param part must be {@code messages}
	 * @param id the message id
	 * @return the message, or {@code null} (404) if the topic holds none with that id, or for another {@code part}
	 */
	@ReadOperation
	public @Nullable Object message(@Selector String topic, @Selector String part, @Selector String id) {
		if (GROUPS.equals(part)) {
			validTopic(topic);
			return this.reads.group(topic, id);
		}
		if (!MESSAGES.equals(part)) {
			return null;
		}
		validTopic(topic);
		validId(id);
		return this.reads.message(topic, id);
	}

	/**
	 * Changes one group of a topic on every instance: pauses or resumes it, sets its concurrency cap (JSON body
	 * {@code {"maxInFlight": 2}}; {@code 0} clears it), its weight (JSON body {@code {"weight": 3}}; {@code 0} sets
	 * the default) or its rate limit ({@code {"ratePerSecond": 5}}; {@code 0} clears it).
	 * @param topic the topic
	 * @param part must be {@code groups}
	 * @param group the group key
	 * @param action {@code pause}, {@code resume}, {@code cap}, {@code weight} or {@code rate}
	 * @param maxInFlight for {@code cap}: the most messages of the group in flight at once; {@code 0} for none
	 * @param weight for {@code weight}: the group's share among the groups served in turn, 1 to 100; {@code 0} for
	 * the default (1)
	 * @param ratePerSecond for {@code rate}: the most handler starts of the group per second; {@code 0} for none
	 * @return the group's controls now, or {@code null} (404) for another {@code part} or {@code action}
	 * @since 1.0.0
	 */
	@WriteOperation
	public @Nullable GroupControlState changeGroup(@Selector String topic, @Selector String part,
			@Selector String group, @Selector String action, @org.springframework.lang.Nullable Integer maxInFlight,
			@org.springframework.lang.Nullable Integer weight, @org.springframework.lang.Nullable Double ratePerSecond) {
		if (!GROUPS.equals(part)) {
			return null;
		}
		validTopic(topic);
		return this.changes.changeGroup(topic, group, action, maxInFlight, weight, ratePerSecond);
	}

	/**
	 * Changes a topic: replays every dead letter ({@code dead}: due at once, attempts reset), or pauses or resumes it
	 * on every instance ({@code pause}, {@code resume}).
	 * @param topic the topic
	 * @param part {@code dead}, {@code pause} or {@code resume}
	 * @return how many were replayed, or the topic's controls now; {@code null} (404) for another {@code part}
	 */
	@WriteOperation
	public @Nullable Object changeTopic(@Selector String topic, @Selector String part) {
		validTopic(topic);
		return this.changes.changeTopic(topic, part);
	}

	/**
	 * Sets a topic's rate limit and concurrency cap on every instance (JSON body): a field left out keeps the
	 * topic's value, {@code 0} clears that limit.
	 * @param topic the topic
	 * @param ratePerSecond the most handler starts per second; {@code 0} for none; absent: unchanged
	 * @param maxInFlight the most messages in flight at once; {@code 0} for none; absent: unchanged
	 * @param groupMaxInFlight the default cap of each of the topic's groups; {@code 0} for none; absent: unchanged
	 * @param groupRatePerSecond the default rate limit of each of the topic's groups; {@code 0} for none; absent:
	 * unchanged
	 * @return the topic's controls now
	 */
	@WriteOperation
	public TopicControlState limits(@Selector String topic, @org.springframework.lang.Nullable Double ratePerSecond,
			@org.springframework.lang.Nullable Integer maxInFlight,
			@org.springframework.lang.Nullable Integer groupMaxInFlight,
			@org.springframework.lang.Nullable Double groupRatePerSecond) {
		validTopic(topic);
		return this.changes.limits(topic, ratePerSecond, maxInFlight, groupMaxInFlight, groupRatePerSecond);
	}

	/**
	 * Replays one dead letter.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @param id the message id
	 * @return how many were replayed (0 or 1), or {@code null} (404) for another {@code part}
	 */
	@WriteOperation
	public @Nullable Changed replay(@Selector String topic, @Selector String part, @Selector String id) {
		validId(id);
		return deadLetters(topic, part) ? this.changes.replay(topic, id) : null;
	}

	/**
	 * Deletes every dead letter of a topic.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @return how many were deleted, or {@code null} (404) for another {@code part}
	 */
	@DeleteOperation
	public @Nullable Changed purgeAll(@Selector String topic, @Selector String part) {
		return deadLetters(topic, part) ? this.changes.purgeAll(topic) : null;
	}

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @param id the message id
	 * @return how many were deleted (0 or 1), or {@code null} (404) for another {@code part}
	 */
	@DeleteOperation
	public @Nullable Changed purge(@Selector String topic, @Selector String part, @Selector String id) {
		validId(id);
		return deadLetters(topic, part) ? this.changes.purge(topic, id) : null;
	}

	/** Whether a change is to the topic's dead letters ({@code dead}, a valid topic): else none (404). */
	private static boolean deadLetters(String topic, String part) {
		if (!DEAD.equals(part)) {
			return false;
		}
		validTopic(topic);
		return true;
	}

	/**
	 * Every known topic.
	 *
	 * @param topics the topics, sorted by name
	 * @param recurring the recurring schedules, sorted by name, with their last and next tick
	 */
	public record TopicsDescriptor(List<TopicDescriptor> topics, List<RecurringScheduleInfo> recurring) {
	}

	/**
	 * One topic.
	 *
	 * @param topic the topic
	 * @param waiting messages due later
	 * @param ready messages due now, not yet claimed
	 * @param inflight messages being handled
	 * @param dead dead letters
	 * @param nextDueAt when the earliest waiting message is due, or {@code null}
	 * @param paused whether delivery is paused on every instance
	 * @param limits its rate limit and concurrency cap
	 * @param listener this application's listener for the topic, or {@code null}
	 */
	public record TopicDescriptor(String topic, long waiting, long ready, long inflight, long dead,
			@Nullable Instant nextDueAt, boolean paused, TopicLimits limits, @Nullable ListenerState listener) {
	}

	/**
	 * A page of dead letters.
	 *
	 * @param topic the topic
	 * @param total how many dead letters the topic has
	 * @param offset the offset of this page
	 * @param deadLetters the page
	 */
	public record DeadLettersDescriptor(String topic, long total, int offset, List<DeadLetterDescriptor> deadLetters) {
	}

	/**
	 * One dead letter.
	 *
	 * @param id the message id
	 * @param attempts the attempts made
	 * @param error the last error
	 * @param diedAt when it died
	 * @param createdAt when it was scheduled
	 * @param headers its headers
	 * @param payload its payload (JSON text)
	 */
	public record DeadLetterDescriptor(String id, int attempts, @Nullable String error, Instant diedAt,
			@Nullable Instant createdAt, Map<String, String> headers, String payload) {

		static DeadLetterDescriptor of(DeadLetter letter) {
			return new DeadLetterDescriptor(letter.id(), letter.attempts(), letter.error(), letter.diedAt(),
					letter.createdAt(), letter.headers(), letter.payloadAsString());
		}

	}

	/**
	 * A page of waiting messages.
	 *
	 * @param topic the topic
	 * @param messages the page, by due time
	 * @param nextCursor where the next page starts, or {@code null} if this is the last
	 */
	public record WaitingDescriptor(String topic, List<MessageDescriptor> messages, @Nullable String nextCursor) {
	}

	/**
	 * One message.
	 *
	 * @param id the message id
	 * @param state where it is
	 * @param dueAt when it is due (not for a dead letter)
	 * @param diedAt when it died (dead letters only)
	 * @param attempts the attempts counted
	 * @param error the last error
	 * @param createdAt when it was scheduled
	 * @param expiresAt its expiry deadline
	 * @param headers its headers
	 * @param payload its payload (JSON text)
	 */
	public record MessageDescriptor(String id, MessageState state, @Nullable Instant dueAt, @Nullable Instant diedAt,
			int attempts, @Nullable String error, @Nullable Instant createdAt, @Nullable Instant expiresAt,
			Map<String, String> headers, String payload) {

		static MessageDescriptor of(MessageInfo info) {
			return new MessageDescriptor(info.id(), info.state(), info.dueAt(), info.diedAt(), info.attempts(),
					info.lastError(), info.createdAt(), info.expiresAt(), info.headers(), info.payloadAsString());
		}

	}

	/**
	 * The result of a replay or purge.
	 *
	 * @param count how many dead letters were replayed or deleted
	 */
	public record Changed(long count) {
	}

}
