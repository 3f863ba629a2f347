package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.actuate.DelayQueueEndpoint.DeadLetterDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.DeadLettersDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.MessageDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TopicDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TopicsDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.WaitingDescriptor;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.recurring.RecurringScheduleInfo;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import static io.github.delayqueue.actuate.EndpointRequests.badRequest;

/**
 * The {@code delayqueue} endpoint's reads: describes topics (counts, next due time, controls, this application's
 * listener) and reads the parts of a topic (dead letters, waiting messages, due counts, groups, one message) from the
 * admin, into the endpoint's descriptors, with the defaults of the arguments left out. It is given checked topics and
 * ids, and checks the rest.
 */
final class TopicReads {

	private static final int DEFAULT_WINDOWS = 60;

	private static final Duration DEFAULT_SPAN = Duration.ofHours(1);

	private static final int DEFAULT_LIMIT = 50;

	private static final int DEFAULT_TOP = 20;

	private final DelayedQueueAdmin admin;

	private final @Nullable DelayedListenerEndpointRegistry registry;

	TopicReads(DelayedQueueAdmin admin, @Nullable DelayedListenerEndpointRegistry registry) {
		this.admin = admin;
		this.registry = registry;
	}

	TopicDescriptor topic(String topic) {
		return describe(topic, listenerStates().get(topic));
	}

	private Map<String, ListenerState> listenerStates() {
		Map<String, ListenerState> listeners = new HashMap<>();
		if (this.registry != null) {
			this.registry.getListenerStates().forEach((state) -> listeners.put(state.topic(), state));
		}
		return listeners;
	}

	private TopicDescriptor describe(String topic, @Nullable ListenerState listener) {
		TopicStats stats = this.admin.stats(topic);
		TopicControlState controls = this.admin.controls(topic);
		return new TopicDescriptor(topic, stats.waiting(), stats.ready(), stats.inflight(), stats.dead(),
				stats.nextDueAt(), controls.paused(), controls.limits(), listener);
	}

	/**
	 * Every known topic, and every topic this application listens to, sorted by name; and the recurring schedules.
	 * @param recurring the recurring schedules, or {@code null} for none
	 * @return the topics
	 */
	TopicsDescriptor topics(@Nullable RecurringSchedules recurring) {
		Map<String, ListenerState> listeners = listenerStates();
		Set<String> topics = new TreeSet<>(this.admin.knownTopics());
		topics.addAll(listeners.keySet());
		List<TopicDescriptor> descriptors = new ArrayList<>(topics.size());
		for (String topic : topics) {
			descriptors.add(describe(topic, listeners.get(topic)));
		}
		List<RecurringScheduleInfo> recurringInfos = (recurring != null) ? recurring.list() : List.of();
		return new TopicsDescriptor(descriptors, recurringInfos);
	}

	DeadLettersDescriptor deadLetters(String topic, @Nullable Integer offset, @Nullable Integer limit) {
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

	WaitingDescriptor waiting(String topic, @Nullable Integer limit, @Nullable Instant from, @Nullable Instant to,
			@Nullable String cursor) {
		int count = (limit != null) ? limit : DEFAULT_LIMIT;
		return badRequest("Invalid listing", () -> {
			WaitingQuery query = WaitingQuery.first(count);
			query = (from != null) ? query.from(from) : query;
			query = (to != null) ? query.to(to) : query;
			query = (cursor != null) ? query.after(cursor) : query;
			MessagePage page = this.admin.listWaiting(topic, query);
			return new WaitingDescriptor(topic, page.messages().stream().map(MessageDescriptor::of).toList(),
					page.nextCursor());
		});
	}

	DueHistogram due(String topic, @Nullable Instant from, @Nullable Instant to, @Nullable Integer windows) {
		return badRequest("Invalid windows", () -> {
			Instant start = (from != null) ? from : Instant.now();
			Instant end = (to != null) ? to : start.plus(DEFAULT_SPAN);
			return this.admin.countDue(topic, start, end, (windows != null) ? windows : DEFAULT_WINDOWS);
		});
	}

	TopGroups topGroups(String topic, @Nullable Integer top) {
		return badRequest("Invalid count", () -> this.admin.topGroups(topic, (top != null) ? top : DEFAULT_TOP));
	}

	GroupControlState group(String topic, String group) {
		return badRequest("Invalid group", () -> this.admin.groupControls(topic, group));
	}

	@Nullable MessageDescriptor message(String topic, String id) {
		return this.admin.lookup(topic, id).map(MessageDescriptor::of).orElse(null);
	}

}
