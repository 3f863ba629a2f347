package io.github.delayqueue.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.recurring.RecurringScheduleInfo;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code delayqueue} actuator endpoint:
 * <ul>
 * <li>{@code GET /actuator/delayqueue}: every known topic with its waiting, ready, in-flight and dead counts, the
 * next due time and this application's listener for it, and every recurring schedule with its last and next
 * tick;</li>
 * <li>{@code GET /actuator/delayqueue/{topic}/dead?offset=0&limit=50}: dead letters, oldest first;</li>
 * <li>{@code POST /actuator/delayqueue/{topic}/dead} replays them all, {@code POST …/dead/{id}} one;</li>
 * <li>{@code DELETE /actuator/delayqueue/{topic}/dead} purges them all, {@code DELETE …/dead/{id}} one.</li>
 * </ul>
 * Replay and purge change data: they are closed by default (read-only access); open them with
 * {@code management.endpoint.delayqueue.access=unrestricted}, behind the application's own security.
 */
@Endpoint(id = "delayqueue", defaultAccess = Access.READ_ONLY)
public class DelayQueueEndpoint {

	private static final String DEAD = "dead";

	private static final int DEFAULT_LIMIT = 50;

	private final DelayedQueueAdmin admin;

	private final @Nullable DelayedListenerEndpointRegistry registry;

	private @Nullable RecurringSchedules recurring;

	/**
	 * Creates the endpoint.
	 * @param admin where topics are read and changed (at once, on the store)
	 * @param registry this application's listeners, if any
	 */
	public DelayQueueEndpoint(DelayedQueueAdmin admin, @Nullable DelayedListenerEndpointRegistry registry) {
		this.admin = admin;
		this.registry = registry;
	}

	/**
	 * Every known topic with its counts, next due time and listener.
	 * @return the topics
	 */
	/**
	 * Sets the recurring schedules to list.
	 * @param recurring the schedules, or {@code null} for none
	 */
	public void setRecurringSchedules(@Nullable RecurringSchedules recurring) {
		this.recurring = recurring;
	}

	@ReadOperation
	public TopicsDescriptor topics() {
		Map<String, ListenerState> listeners = new java.util.HashMap<>();
		if (this.registry != null) {
			this.registry.getListenerStates().forEach((state) -> listeners.put(state.topic(), state));
		}
		Set<String> topics = new TreeSet<>(this.admin.knownTopics());
		topics.addAll(listeners.keySet());
		List<TopicDescriptor> descriptors = new ArrayList<>(topics.size());
		for (String topic : topics) {
			TopicStats stats = this.admin.stats(topic);
			descriptors.add(new TopicDescriptor(topic, stats.waiting(), stats.ready(), stats.inflight(), stats.dead(),
					stats.nextDueAt(), listeners.get(topic)));
		}
		RecurringSchedules schedules = this.recurring;
		List<RecurringScheduleInfo> recurringInfos = (schedules != null) ? schedules.list() : List.of();
		return new TopicsDescriptor(descriptors, recurringInfos);
	}

	/**
	 * A page of a topic's dead letters, oldest first.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @param offset how many to skip (default 0)
	 * @param limit how many at most (default 50, at most 1000)
	 * @return the page, or {@code null} (404) for another {@code part}
	 */
	@ReadOperation
	public @Nullable DeadLettersDescriptor deadLetters(@Selector String topic, @Selector String part,
			@Nullable Integer offset, @Nullable Integer limit) {
		if (!DEAD.equals(part)) {
			return null;
		}
		validTopic(topic);
		int from = (offset != null) ? offset : 0;
		int count = (limit != null) ? limit : DEFAULT_LIMIT;
		if (from < 0 || count < 1 || count > 1000) {
			throw new InvalidEndpointRequestException("offset must be 0 or more and limit between 1 and 1000",
					"Invalid paging");
		}
		List<DeadLetterDescriptor> letters = this.admin.deadLetters(topic, from, count)
			.stream()
			.map(DeadLetterDescriptor::of)
			.toList();
		return new DeadLettersDescriptor(topic, this.admin.stats(topic).dead(), from, letters);
	}

	/**
	 * Replays every dead letter of a topic: due at once, attempts reset.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @return how many were replayed, or {@code null} (404) for another {@code part}
	 */
	@WriteOperation
	public @Nullable Changed replayAll(@Selector String topic, @Selector String part) {
		return change(topic, part, this.admin::replayDeadLetters);
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
		return change(topic, part, (t) -> this.admin.replayDeadLetter(t, id) ? 1L : 0L);
	}

	/**
	 * Deletes every dead letter of a topic.
	 * @param topic the topic
	 * @param part must be {@code dead}
	 * @return how many were deleted, or {@code null} (404) for another {@code part}
	 */
	@DeleteOperation
	public @Nullable Changed purgeAll(@Selector String topic, @Selector String part) {
		return change(topic, part, this.admin::purgeDeadLetters);
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
		return change(topic, part, (t) -> this.admin.purgeDeadLetter(t, id) ? 1L : 0L);
	}

	private @Nullable Changed change(String topic, String part, Function<String, Long> action) {
		if (!DEAD.equals(part)) {
			return null;
		}
		validTopic(topic);
		return new Changed(action.apply(topic));
	}

	private static void validTopic(String topic) {
		if (!Topics.isValid(topic)) {
			throw new InvalidEndpointRequestException("Invalid topic '" + topic + "'", "Invalid topic");
		}
	}

	private static void validId(String id) {
		try {
			MessageIds.validate(id);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid message id");
		}
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
	 * @param listener this application's listener for the topic, or {@code null}
	 */
	public record TopicDescriptor(String topic, long waiting, long ready, long inflight, long dead,
			@Nullable Instant nextDueAt, @Nullable ListenerState listener) {
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
	 * The result of a replay or purge.
	 *
	 * @param count how many dead letters were replayed or deleted
	 */
	public record Changed(long count) {
	}

}
