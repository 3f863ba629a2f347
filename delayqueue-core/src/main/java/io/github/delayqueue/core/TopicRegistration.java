package io.github.delayqueue.core;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.redis.RedisMessageStore;

/**
 * Registers the topics written to as known (so that their controls may be set), once per topic and writer: a
 * registration that failed is tried again with the next write.
 */
final class TopicRegistration {

	private final RedisMessageStore store;

	private final Set<String> registeredTopics = ConcurrentHashMap.newKeySet();

	TopicRegistration(RedisMessageStore store) {
		this.store = store;
	}

	void register(String topic) {
		if (this.registeredTopics.add(topic)) {
			try {
				this.store.topics().register(List.of(topic));
			}
			catch (RuntimeException ex) {
				this.registeredTopics.remove(topic);
			}
		}
	}

	void registerAsync(String topic) {
		if (this.registeredTopics.add(topic)) {
			this.store.topics().registerAsync(topic).whenComplete((done, failure) -> {
				if (failure != null) {
					this.registeredTopics.remove(topic);
				}
			});
		}
	}

}
