package io.github.delayqueue.migration.redisson;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.payload.PayloadConverter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Moves the waiting messages of a Redisson {@code RDelayedQueue} into a delayqueue topic, keeping each message's
 * due time. Run it once the old consumers, producers and every other Redisson client of the queue are stopped:
 * <ol>
 * <li>it refuses to start while a Redisson client still holds the delayed queue (one subscribes to
 * {@link RedissonDelayedQueueKeys#channel()}: its transfer task could move elements meanwhile);</li>
 * <li>it reads and decodes every element first, page by page, and writes nothing if one cannot be read with the
 * codec or stored as a payload by the {@link PayloadConverter};</li>
 * <li>it schedules each element of the sorted set for its stored due time, and each element already in the
 * destination queue (due, not yet taken) for now, through {@link DelayedQueue#scheduleAll(List)} with an id derived
 * from the stored element, and records the ids in a ledger beside the queue's keys; elements a previous run
 * recorded are skipped, so running it again duplicates nothing;</li>
 * <li>with {@link MigrationRequest#removeMigrated()}, it then removes the recorded elements from Redisson's keys
 * (again: removing twice removes nothing more).</li>
 * </ol>
 * It holds one page of elements at a time (a queue of millions migrates in bounded memory) and logs its progress
 * about every tenth of the elements, in each pass.
 * <p>
 * Redisson's due times are epoch milliseconds on the producing client's clock; delayqueue measures them on the
 * Redis server's clock, so a message is delivered when the Redis clock reaches the stored time.
 *
 * @since 1.0.0
 */
public class RedissonDelayedQueueMigration {

	/** The header every migrated message carries: {@code redisson:} and the queue name. */
	public static final String MIGRATED_FROM_HEADER = "migrated-from";

	private static final Logger logger = LoggerFactory.getLogger(RedissonDelayedQueueMigration.class);

	/** PUBSUB NUMSUB of one channel (on a Redis Cluster: of the node that runs the script). */
	private static final byte[] SUBSCRIBERS = "return redis.call('pubsub', 'numsub', ARGV[1])[2]"
		.getBytes(StandardCharsets.US_ASCII);

	/** What a JSON converter writes for an object it sees no property of. */
	private static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.US_ASCII);

	private final RedisConnectionFactory connectionFactory;

	private final DelayedQueue queue;

	private final PayloadConverter payloadConverter;

	/**
	 * Creates a migration.
	 * @param connectionFactory connections to the Redis that holds the Redisson queue (and, usually, the topic)
	 * @param queue the delayqueue to schedule the messages in
	 * @param payloadConverter the converter {@code queue} stores payloads with: every payload is checked with it
	 * before anything is written
	 */
	public RedissonDelayedQueueMigration(RedisConnectionFactory connectionFactory, DelayedQueue queue,
			PayloadConverter payloadConverter) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.notNull(queue, "DelayedQueue must not be null");
		Assert.notNull(payloadConverter, "PayloadConverter must not be null");
		this.connectionFactory = connectionFactory;
		this.queue = queue;
		this.payloadConverter = payloadConverter;
	}

	/**
	 * Runs the migration.
	 * @param request what to migrate
	 * @return what was found and done
	 * @throws RedissonMigrationException if a Redisson client still holds the queue, or an element cannot be read
	 * with the codec or stored as a payload (nothing is written in either case)
	 * @throws IllegalStateException if called inside a transaction
	 */
	public MigrationReport migrate(MigrationRequest request) {
		Assert.state(!TransactionSynchronizationManager.isSynchronizationActive(),
				"Run the migration outside a transaction: inside one, DelayedQueue writes wait for the commit, "
						+ "and the migration records what the topic holds as it goes");
		RedissonDelayedQueueKeys keys = new RedissonDelayedQueueKeys(request.queue());
		requireNoRedissonClient(keys);
		RedissonQueueReader reader = new RedissonQueueReader(this.connectionFactory, keys, request.codec());
		MigrationLedger ledger = new MigrationLedger(this.connectionFactory, keys);
		long total = reader.size();
		MigrationProgress checked = new MigrationProgress(request.queue(), "read and checked", total);
		long delayed = forEachDelayed(reader, request.batchSize(), (page) -> check(page, checked));
		long due = forEachDue(reader, request.batchSize(), (page) -> check(page, checked));
		logger.info("Redisson queue '{}' ({}): {} delayed and {} due elements read, all readable; scheduling them "
				+ "in topic '{}'", request.queue(), request.codec().simpleName(), delayed, due, request.topic());
		Counts counts = new Counts();
		MigrationProgress scheduled = new MigrationProgress(request.queue(), "scheduled or skipped", delayed + due);
		PageAction schedulePage = (page) -> {
			schedule(page, request, ledger, counts);
			scheduled.advance(page.size());
		};
		forEachDelayed(reader, request.batchSize(), schedulePage);
		forEachDue(reader, request.batchSize(), schedulePage);
		long removed = 0;
		if (request.removeMigrated()) {
			MigratedElements migrated = new MigratedElements(this.connectionFactory, keys, reader, ledger);
			removed = migrated.removeDelayed(request.batchSize()) + migrated.removeDue(request.batchSize());
		}
		MigrationReport report = new MigrationReport(request.queue(), request.topic(), delayed, due, counts.scheduled,
				counts.existing, counts.alreadyMigrated, removed);
		logger.info("{}", report);
		return report;
	}

	private void requireNoRedissonClient(RedissonDelayedQueueKeys keys) {
		long subscribers = subscribers(keys.channel());
		if (subscribers > 0) {
			throw new RedissonMigrationException(subscribers + " Redisson client(s) still subscribe to "
					+ keys.channel() + ": a client that holds this RDelayedQueue runs its transfer task, which moves "
					+ "due elements while the migration reads them. Stop every Redisson client of queue '"
					+ keys.name() + "' (consumers and producers), then run the migration again. Nothing was written");
		}
	}

	private long subscribers(String channel) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long subscribers = connection.scriptingCommands()
				.eval(SUBSCRIBERS, ReturnType.INTEGER, 0, channel.getBytes(StandardCharsets.UTF_8));
			return (subscribers != null) ? subscribers : 0;
		}
	}

	private void check(List<WaitingMessage> page, MigrationProgress progress) {
		for (WaitingMessage message : page) {
			Object payload = message.payload();
			byte[] json;
			try {
				json = this.payloadConverter.write(payload);
			}
			catch (RuntimeException ex) {
				throw new RedissonMigrationException(element(message) + ", which cannot be stored as a payload: "
						+ ex.getMessage() + ". Nothing was written", ex);
			}
			if (!(payload instanceof Map) && Arrays.equals(json, EMPTY_OBJECT)) {
				throw new RedissonMigrationException(element(message) + ", which the payload converter writes as {}: "
						+ "it sees no property of it (a class that keeps its state in fields without getters, as "
						+ "Kryo allows), so its data would be lost. Let the application's JsonMapper see its fields "
						+ "(such as @JsonAutoDetect(fieldVisibility = ANY) or a mix-in), then run the migration "
						+ "again. Nothing was written");
			}
		}
		progress.advance(page.size());
	}

	private static String element(WaitingMessage message) {
		return "Element " + message.position() + " of " + message.key() + " was read as "
				+ message.payload().getClass().getName();
	}

	private void schedule(List<WaitingMessage> page, MigrationRequest request, MigrationLedger ledger,
			Counts counts) {
		Set<String> recorded = ledger.recorded(page.stream().map(WaitingMessage::id).toList());
		List<ScheduleRequest> requests = new ArrayList<>();
		for (WaitingMessage message : page) {
			if (recorded.contains(message.id())) {
				counts.alreadyMigrated++;
				continue;
			}
			ScheduleRequest.Builder builder = ScheduleRequest.builder(request.topic(), message.payload())
				.id(message.id())
				.header(MIGRATED_FROM_HEADER, "redisson:" + request.queue());
			if (message.dueAt() != null) {
				builder.dueAt(message.dueAt());
			}
			requests.add(builder.build());
		}
		if (requests.isEmpty()) {
			return;
		}
		List<ScheduleResult> results = this.queue.scheduleAll(requests);
		for (ScheduleResult result : results) {
			if (result.scheduled()) {
				counts.scheduled++;
			}
			else {
				counts.existing++;
			}
		}
		ledger.record(results.stream().map(ScheduleResult::id).toList());
	}

	private static long forEachDelayed(RedissonQueueReader reader, int batchSize, PageAction action) {
		long count = 0;
		List<WaitingMessage> page;
		while (!(page = reader.delayed(count, batchSize)).isEmpty()) {
			action.accept(page);
			count += page.size();
		}
		return count;
	}

	private static long forEachDue(RedissonQueueReader reader, int batchSize, PageAction action) {
		long count = 0;
		RedissonQueueReader.Occurrences occurrences = new RedissonQueueReader.Occurrences();
		List<WaitingMessage> page;
		while (!(page = reader.due(count, batchSize, occurrences)).isEmpty()) {
			action.accept(page);
			count += page.size();
		}
		return count;
	}

	/** Does something with one page of messages. */
	@FunctionalInterface
	private interface PageAction {

		void accept(List<WaitingMessage> page);

	}

	/** What the scheduling pages did. */
	private static final class Counts {

		long scheduled;

		long existing;

		long alreadyMigrated;

	}

}
