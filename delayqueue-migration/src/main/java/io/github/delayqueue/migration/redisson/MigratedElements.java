package io.github.delayqueue.migration.redisson;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Removes from Redisson's keys the elements the ledger records as migrated, and only those: a waiting element from
 * the sorted set and the delay list together (as Redisson's own {@code remove} does), a due element from the
 * destination queue. Each page is removed by one script; running it again removes nothing more.
 */
final class MigratedElements {

	private static final byte[] REMOVE_DELAYED = ("local removed = 0 for i = 1, #ARGV do "
			+ "if redis.call('zrem', KEYS[1], ARGV[i]) == 1 then redis.call('lrem', KEYS[2], 1, ARGV[i]) "
			+ "removed = removed + 1 end end return removed")
		.getBytes(StandardCharsets.US_ASCII);

	private static final byte[] REMOVE_DUE = ("local removed = 0 for i = 1, #ARGV do "
			+ "removed = removed + redis.call('lrem', KEYS[1], 1, ARGV[i]) end return removed")
		.getBytes(StandardCharsets.US_ASCII);

	private final RedisConnectionFactory connectionFactory;

	private final RedissonDelayedQueueKeys keys;

	private final RedissonQueueReader reader;

	private final MigrationLedger ledger;

	MigratedElements(RedisConnectionFactory connectionFactory, RedissonDelayedQueueKeys keys,
			RedissonQueueReader reader, MigrationLedger ledger) {
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		this.reader = reader;
		this.ledger = ledger;
	}

	/**
	 * Removes the migrated waiting elements.
	 * @param batchSize elements per page
	 * @return how many were removed
	 */
	long removeDelayed(int batchSize) {
		long removed = 0;
		long offset = 0;
		List<WaitingMessage> page;
		while (!(page = this.reader.delayed(offset, batchSize)).isEmpty()) {
			long gone = remove(REMOVE_DELAYED, List.of(this.keys.timeoutSet(), this.keys.delayList()), page);
			removed += gone;
			offset += page.size() - gone;
		}
		return removed;
	}

	/**
	 * Removes the migrated due elements.
	 * @param batchSize elements per page
	 * @return how many were removed
	 */
	long removeDue(int batchSize) {
		long removed = 0;
		long offset = 0;
		RedissonQueueReader.Occurrences occurrences = new RedissonQueueReader.Occurrences();
		List<WaitingMessage> page;
		while (!(page = this.reader.due(offset, batchSize, occurrences)).isEmpty()) {
			long gone = remove(REMOVE_DUE, List.of(this.keys.destination()), page);
			removed += gone;
			offset += page.size() - gone;
		}
		return removed;
	}

	private long remove(byte[] script, List<String> keys, List<WaitingMessage> page) {
		Set<String> recorded = this.ledger.recorded(page.stream().map(WaitingMessage::id).toList());
		List<byte[]> keysAndArgs = new ArrayList<>();
		keys.forEach((key) -> keysAndArgs.add(RedissonQueueReader.bytes(key)));
		page.stream()
			.filter((message) -> recorded.contains(message.id()))
			.forEach((message) -> keysAndArgs.add(message.stored()));
		if (keysAndArgs.size() == keys.size()) {
			return 0;
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long removed = connection.scriptingCommands()
				.eval(script, ReturnType.INTEGER, keys.size(), keysAndArgs.toArray(byte[][]::new));
			return (removed != null) ? removed : 0;
		}
	}

}
