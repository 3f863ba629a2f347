package io.github.delayqueue.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConversionException;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The producing side of delayqueue: {@link RedisDelayedQueue} with an explicit id and due time per message; the
 * counts and dead letters the suite tallies come from a {@link RedisDelayedQueueAdmin} of the same store.
 */
final class DelayQueueClient implements QueueClient {

	private static final int DEAD_LETTER_PAGE = 1_000;

	private final LettuceConnectionFactory connectionFactory;

	private final RedisDelayedQueue queue;

	private final RedisDelayedQueueAdmin admin;

	DelayQueueClient(int port, Duration timeout) {
		this.connectionFactory = DelayQueueConsumer.connectionFactory(port, timeout);
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, DelayQueueConsumer.PREFIX,
				DeadLetterPolicy.DEFAULT);
		PayloadConverter converter = new JacksonPayloadConverter();
		this.queue = new RedisDelayedQueue(store, converter);
		this.admin = new RedisDelayedQueueAdmin(store, converter);
	}

	@Override
	public boolean send(String id, Work work) {
		return this.queue
			.schedule(ScheduleRequest.builder(DelayQueueConsumer.TOPIC, work)
				.id(id)
				.dueAt(Instant.ofEpochMilli(work.due()))
				.build())
			.scheduled();
	}

	@Override
	public void sendUnreadable(String id, long due) {
		this.queue.schedule(ScheduleRequest.builder(DelayQueueConsumer.TOPIC, "not a work item")
			.id(id)
			.dueAt(Instant.ofEpochMilli(due))
			.build());
	}

	@Override
	public long remaining() {
		TopicStats stats = this.admin.stats(DelayQueueConsumer.TOPIC);
		return stats.pending() + stats.inflight();
	}

	@Override
	public Set<String> deadLetterIds() {
		Set<String> ids = new HashSet<>();
		for (int offset = 0;; offset += DEAD_LETTER_PAGE) {
			var page = this.admin.deadLetters(DelayQueueConsumer.TOPIC, offset, DEAD_LETTER_PAGE);
			page.stream().map(DeadLetter::id).forEach(ids::add);
			if (page.size() < DEAD_LETTER_PAGE) {
				return ids;
			}
		}
	}

	/**
	 * Looks each message up by id ({@code lookup}); a message the queue holds under the same id but of another
	 * generation (the id was scheduled again after this one was handled) does not count as this one.
	 */
	@Override
	public Map<String, Held> held(Collection<String> keys) {
		Map<String, Held> held = new HashMap<>();
		for (String key : keys) {
			this.queue.lookup(DelayQueueConsumer.TOPIC, Work.idOf(key))
				.filter((info) -> sameGeneration(info, key))
				.ifPresent((info) -> held.put(key, new Held(info.state().name(), info.attempts())));
		}
		return held;
	}

	private static boolean sameGeneration(MessageInfo info, String key) {
		if (info.state() == MessageState.DEAD) {
			// a dead letter's payload may be unreadable: its id is what the dead-letter count goes by too
			return true;
		}
		try {
			return key.equals(info.payload(Work.class).key());
		}
		catch (PayloadConversionException ex) {
			return true;
		}
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
