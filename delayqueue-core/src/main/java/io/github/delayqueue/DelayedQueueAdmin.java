package io.github.delayqueue;

import java.util.Set;

/**
 * What operators' tools (the actuator endpoint, health, metrics, a dashboard) need besides {@link DelayedQueue}:
 * the topics in use. Per-topic state comes from {@link DelayedQueue#stats(String)}, dead letters from
 * {@link DelayedQueue#deadLetters(String, int, int)} and its siblings.
 */
public interface DelayedQueueAdmin {

	/**
	 * The known topics: every topic scheduled to or consumed from (with this key prefix), whether or not it holds
	 * messages now. Reading it is one Redis command; it doubles as a check that Redis answers.
	 * @return the topics, sorted
	 * @throws org.springframework.dao.DataAccessException if Redis cannot be reached
	 */
	Set<String> knownTopics();

}
