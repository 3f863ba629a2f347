package io.github.delayqueue.migration.redisson;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The ids a migration has scheduled from one Redisson queue, in a Redis set beside the queue's keys
 * ({@link RedissonDelayedQueueKeys#ledger()}). A message is recorded once the topic holds it, and a later run skips
 * what is recorded, so running again duplicates nothing even after the first run's messages were delivered (and
 * their ids freed in the topic). Removing migrated elements from Redisson's keys removes only recorded ones.
 */
final class MigrationLedger {

	private final RedisConnectionFactory connectionFactory;

	private final byte[] key;

	MigrationLedger(RedisConnectionFactory connectionFactory, RedissonDelayedQueueKeys keys) {
		this.connectionFactory = connectionFactory;
		this.key = RedissonQueueReader.bytes(keys.ledger());
	}

	/**
	 * The ids among these that are recorded.
	 * @param ids ids to look up
	 * @return the recorded ones
	 */
	Set<String> recorded(List<String> ids) {
		if (ids.isEmpty()) {
			return Set.of();
		}
		List<Boolean> members;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			members = connection.setCommands().sMIsMember(this.key, toBytes(ids));
		}
		Set<String> recorded = new HashSet<>();
		for (int i = 0; i < ids.size(); i++) {
			if (members != null && Boolean.TRUE.equals(members.get(i))) {
				recorded.add(ids.get(i));
			}
		}
		return recorded;
	}

	/**
	 * Records ids whose messages the topic holds.
	 * @param ids the ids
	 */
	void record(List<String> ids) {
		if (ids.isEmpty()) {
			return;
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.setCommands().sAdd(this.key, toBytes(ids));
		}
	}

	private static byte[][] toBytes(List<String> ids) {
		List<byte[]> bytes = new ArrayList<>(ids.size());
		ids.forEach((id) -> bytes.add(RedissonQueueReader.bytes(id)));
		return bytes.toArray(byte[][]::new);
	}

}
