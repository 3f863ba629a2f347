package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.redis.NewMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a held write that failed after its transaction committed: logs it with its ids (in the category of
 * {@code TransactionalWrites}) and tells the queue, which counts and publishes it (see {@link AfterCommitFailedEvent});
 * a failure in telling is logged too, and never reaches the committing thread.
 */
final class AfterCommitFailures {

	/** The category the holder of the writes always logged in. */
	private static final Logger logger = LoggerFactory.getLogger("io.github.delayqueue.core.TransactionalWrites");

	/** The source of the events. */
	private final Object source;

	private final Consumer<AfterCommitFailedEvent> failures;

	/**
	 * Creates the reporter of one queue's failed writes.
	 * @param source the source of the events
	 * @param failures told about each write that failed after its commit
	 */
	AfterCommitFailures(Object source, Consumer<AfterCommitFailedEvent> failures) {
		this.source = source;
		this.failures = failures;
	}

	void failed(String operation, String topic, List<String> ids, RuntimeException ex) {
		logger.error("Topic '{}': the transaction committed but the {} of messages {} that it held failed; they "
				+ "did not change in the queue", topic, operation, ids, ex);
		try {
			this.failures.accept(new AfterCommitFailedEvent(this.source, operation, topic, ids, ex));
		}
		catch (RuntimeException listenerFailure) {
			logger.warn("Topic '{}': telling of the failed {} failed too", topic, operation, listenerFailure);
		}
	}

	/**
	 * The ids of the messages among {@code failed} (by identity), by topic in the order they were held: what an
	 * {@link AfterCommitFailedEvent} names. Shared with {@code ReactiveTransactionalWrites}.
	 * @param requests the held requests
	 * @param messages their prepared messages, in the same order
	 * @param failed the messages not stored
	 * @return the ids by topic
	 */
	static Map<String, List<String>> idsByTopic(List<ScheduleRequest> requests, List<NewMessage> messages,
			Collection<NewMessage> failed) {
		Set<NewMessage> unstored = Collections.newSetFromMap(new IdentityHashMap<>());
		unstored.addAll(failed);
		Map<String, List<String>> idsByTopic = new LinkedHashMap<>();
		for (int i = 0; i < messages.size(); i++) {
			if (unstored.contains(messages.get(i))) {
				idsByTopic.computeIfAbsent(requests.get(i).topic(), (topic) -> new ArrayList<>())
					.add(messages.get(i).id());
			}
		}
		return idsByTopic;
	}

}
