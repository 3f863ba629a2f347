package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.number;

/**
 * What producers do to a topic's waiting messages, and how a topic is counted: store, cancel and move messages by
 * id, each one script on the topic's keys. Obtained from {@link RedisMessageStore#messages()}.
 *
 * @since 1.0.0
 */
public final class MessageOperations {

	private static final Script SCHEDULE = Script.load("schedule");

	/**
	 * {@link #SCHEDULE} for messages without a group and of the default priority: the same effects, a shorter call.
	 */
	private static final Script SCHEDULE_PLAIN = Script.load("schedule-plain");

	private static final Script CANCEL = Script.load("cancel");

	private static final Script RESCHEDULE = Script.load("reschedule");

	private static final Script REPLACE = Script.load("replace");

	private static final Script TICK = Script.load("tick");


	/** The most windows one {@link #countDue} call counts (one {@code ZCOUNT} each: about a millisecond in all). */
	public static final int MAX_WINDOWS = 1000;

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final @Nullable ReactiveScriptExecutor reactiveScripts;

	private final MessageReads reads;

	/** Whether plain messages are scheduled into their topic's pages (stored format 5). */
	private volatile boolean paged = true;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public MessageOperations(TopicKeys keys, ScriptExecutor scripts, @Nullable ReactiveScriptExecutor reactiveScripts) {
		this.keys = keys;
		this.scripts = scripts;
		this.reactiveScripts = reactiveScripts;
		this.reads = new MessageReads(keys, scripts, reactiveScripts);
	}

	/** The most pages one call of {@link #countDue} walks: tests make a count span several calls with few pages. */
	void setPagesPerCount(int pagesPerCount) {
		this.reads.setPagesPerCount(pagesPerCount);
	}

	/** See {@link RedisMessageStore#setStoredFormat(int)}. */
	public void setStoredFormat(int storedFormat) {
		Assert.isTrue(storedFormat == 2 || storedFormat == 5,
				() -> "Stored format must be 2 or 5, but was " + storedFormat);
		this.paged = storedFormat == 5;
	}

	/** The non-blocking script runner, for the partition registry beside these operations. */
	ReactiveScriptExecutor reactiveScriptsForRegistry() {
		return reactiveScripts();
	}

	private ReactiveScriptExecutor reactiveScripts() {
		return ReactiveScriptExecutor.required(this.reactiveScripts);
	}

	/**
	 * Stores the message of one tick of a recurring schedule unless the schedule's cursor is at or past the tick,
	 * and moves the cursor to it, atomically: however many instances store the same tick, one does. The cursor is
	 * kept in the same partition, beside the message. Should the tick's id be taken by another message (a caller's
	 * own id that happens to read like a tick's), the tick is stored under {@code <id>~<n>} instead, the first free
	 * {@code n} from 1 to 8, and a change of the definition withdraws it under that id.
	 * @param partition the store's name of the topic partition that keeps the schedule's cursor
	 * @param schedule the schedule's name
	 * @param message the tick's message, due at the tick ({@link DueTime#at(long)})
	 * @param digest the digest of the definition the tick was computed from: the tick is refused if the schedule's
	 * definition has changed since (see {@link RecurringStore#changed})
	 * @return the id the message was stored under, or {@code null} if this call stored nothing (the cursor was at or
	 * past the tick, or the definition has changed)
	 * @throws IllegalStateException if the id and its eight alternatives are all taken (nothing is stored)
	 * @since 1.0.0
	 */
	public @Nullable String tick(String partition, String schedule, NewMessage message, String digest) {
		Assert.isTrue(!message.due().relative(), "A tick is due at an absolute time");
		byte[] envelope = StoredForms.envelope(message).encode();
		long stored = this.scripts.run(TICK, ReturnType.INTEGER, this.keys.pending(partition), bytes(schedule),
				bytes(message.due().value()), bytes(message.id()), envelope, bytes(digest));
		if (stored < 0) {
			throw new IllegalStateException("Tick '" + message.id() + "' of recurring schedule '" + schedule
					+ "' cannot be stored: its id and the ids '" + message.id() + "~1' to '" + message.id()
					+ "~8' are all taken by other messages of topic '" + partition + "'");
		}
		return (stored == 0) ? null : (stored == 1) ? message.id() : message.id() + "~" + (stored - 1);
	}

	/**
	 * Stores messages of one topic whose ids do not exist yet, atomically: one script call.
	 * @param topic the topic
	 * @param messages at most {@value RedisMessageStore#CHUNK_SIZE} messages
	 * @return per message, whether it was stored ({@code false}: its id existed, nothing changed)
	 */
	public List<Boolean> schedule(String topic, List<NewMessage> messages) {
		ScheduleCall call = scheduleCall(topic, messages);
		return call.outcomes(this.scripts.runReplicated(call.script(), call.type(), call.arguments()));
	}

	/**
	 * {@link #schedule(String, List)} without blocking: the script call is sent at once, and the future completes
	 * on the client's I/O thread once Redis replied.
	 * @param topic the topic
	 * @param messages at most {@value RedisMessageStore#CHUNK_SIZE} messages
	 * @return per message, whether it was stored ({@code false}: its id existed, nothing changed)
	 * @throws IllegalStateException if the store has no non-blocking connection (see
	 * {@link RedisMessageStore#isNonBlocking()})
	 * @since 1.0.0
	 */
	public CompletableFuture<List<Boolean>> scheduleAsync(String topic, List<NewMessage> messages) {
		ReactiveScriptExecutor reactive = reactiveScripts();
		ScheduleCall call = scheduleCall(topic, messages);
		return reactive.runReplicated(call.script(), call.type(), call.arguments()).thenApply(call::outcomes);
	}

	/**
	 * The script call that stores messages: {@link #SCHEDULE_PLAIN} for plain ones (one alone replies with a
	 * number), else {@link #SCHEDULE}.
	 */
	private ScheduleCall scheduleCall(String topic, List<NewMessage> messages) {
		if (!plain(messages)) {
			return new ScheduleCall(SCHEDULE, ReturnType.MULTI, scheduleArguments(topic, messages, false));
		}
		return new ScheduleCall(SCHEDULE_PLAIN, (messages.size() == 1) ? ReturnType.INTEGER : ReturnType.MULTI,
				scheduleArguments(topic, messages, true));
	}

	/**
	 * Whether a schedule call takes {@link #SCHEDULE_PLAIN}: messages without a group and of the default priority
	 * (the others need the prelude's groups or priorities: schedule.lua). Both scripts have the same effects.
	 */
	private static boolean plain(List<NewMessage> messages) {
		for (NewMessage message : messages) {
			if (message.group() != null || message.priority() != Envelope.DEFAULT_PRIORITY) {
				return false;
			}
		}
		return !messages.isEmpty();
	}

	/**
	 * A schedule script's key and arguments: per message its id, due time, envelope and expiry, and for
	 * {@link #SCHEDULE_PLAIN} the bucket hash of its id (computed here, on the caller's thread, so that the script
	 * need not: see {@link BucketHash}).
	 */
	private byte[][] scheduleArguments(String topic, List<NewMessage> messages, boolean withHashes) {
		Assert.isTrue(messages.size() <= RedisMessageStore.CHUNK_SIZE,
				() -> "At most " + RedisMessageStore.CHUNK_SIZE + " messages per call, but got " + messages.size());
		byte[][] args = new byte[1 + messages.size() * (withHashes ? 6 : 5)][];
		int i = 0;
		args[i++] = this.keys.pending(topic);
		long now = System.nanoTime();
		@Nullable BucketHash hashes = withHashes ? new BucketHash() : null;
		for (NewMessage message : messages) {
			byte[] id = bytes(message.id());
			args[i++] = id;
			String kind = StoredForms.kind(message.due());
			// (upper case: into the topic's pages, stored format 5; schedule-plain.lua only)
			args[i++] = bytes((withHashes && this.paged) ? kind.toUpperCase(Locale.ROOT) : kind);
			args[i++] = bytes(StoredForms.argument(message.due(), now));
			args[i++] = StoredForms.envelope(message).encode();
			args[i++] = expiryOf(message);
			if (hashes != null) {
				args[i++] = hashes.hash(id);
			}
		}
		return args;
	}

	/**
	 * A schedule's script call.
	 *
	 * @param script the script
	 * @param type its reply's type: a number for one message, else one per message
	 * @param arguments its key and arguments
	 */
	private record ScheduleCall(Script script, ReturnType type, byte[][] arguments) {

		/** Per message, whether it was stored, from the script's reply. */
		List<Boolean> outcomes(Object reply) {
			if (this.type == ReturnType.INTEGER) {
				return List.of(number(reply) == 1L);
			}
			List<?> flags = (List<?>) reply;
			List<Boolean> stored = new ArrayList<>(flags.size());
			for (Object flag : flags) {
				stored.add(number(flag) == 1L);
			}
			return stored;
		}

	}

	private static byte[] expiryOf(NewMessage message) {
		Expiry expiry = message.expiry();
		return (expiry != null) ? bytes(StoredForms.encode(expiry)) : NONE;
	}

	/**
	 * Stores a message, or replaces the waiting message with its id (scheduled or waiting for a retry): its payload,
	 * headers, due time and expiry; a retrying message keeps its attempts and last error. A message in flight or dead
	 * is left as it is.
	 * @param topic the topic
	 * @param message the message
	 * @return what happened
	 */
	public Replacement replace(String topic, NewMessage message) {
		return replacementOf(this.scripts.runReplicated(REPLACE, ReturnType.INTEGER, replaceArguments(topic, message)));
	}

	/**
	 * {@link #replace(String, NewMessage)} without blocking.
	 * @param topic the topic
	 * @param message the message
	 * @return what happened, once Redis replied
	 * @since 1.0.0
	 */
	public CompletableFuture<Replacement> replaceAsync(String topic, NewMessage message) {
		ReactiveScriptExecutor reactive = reactiveScripts();
		return reactive.runReplicated(REPLACE, ReturnType.INTEGER, replaceArguments(topic, message))
			.thenApply(MessageOperations::replacementOf);
	}

	private byte[][] replaceArguments(String topic, NewMessage message) {
		return new byte[][] { this.keys.pending(topic), bytes(message.id()), bytes(StoredForms.kind(message.due())),
				bytes(StoredForms.argument(message.due(), System.nanoTime())),
				StoredForms.envelope(message).encode(), expiryOf(message) };
	}

	private static Replacement replacementOf(Object reply) {
		return Replacement.values()[(int) number(reply)];
	}

	/**
	 * Removes a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone
	 */
	public boolean cancel(String topic, String id) {
		return number(this.scripts.runReplicated(CANCEL, ReturnType.INTEGER, MessageReads.withHash(this.keys.pending(topic), id))) == 1L;
	}

	/**
	 * {@link #cancel(String, String)} without blocking.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone, once Redis replied
	 * @since 1.0.0
	 */
	public CompletableFuture<Boolean> cancelAsync(String topic, String id) {
		ReactiveScriptExecutor reactive = reactiveScripts();
		return reactive.runReplicated(CANCEL, ReturnType.INTEGER, MessageReads.withHash(this.keys.pending(topic), id))
			.thenApply((reply) -> number(reply) == 1L);
	}

	/**
	 * Moves the due time of a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @param due the new due time
	 * @return {@code true} if it was waiting and has moved
	 */
	public boolean reschedule(String topic, String id, DueTime due) {
		return number(this.scripts.runReplicated(RESCHEDULE, ReturnType.INTEGER, this.keys.pending(topic), bytes(id),
				bytes(StoredForms.kind(due)), bytes(StoredForms.argument(due, System.nanoTime())))) == 1L;
	}

	/**
	 * {@link #reschedule(String, String, DueTime)} without blocking.
	 * @param topic the topic
	 * @param id the message id
	 * @param due the new due time
	 * @return {@code true} if it was waiting and has moved, once Redis replied
	 * @since 1.0.0
	 */
	public CompletableFuture<Boolean> rescheduleAsync(String topic, String id, DueTime due) {
		ReactiveScriptExecutor reactive = reactiveScripts();
		return reactive.runReplicated(RESCHEDULE, ReturnType.INTEGER, this.keys.pending(topic), bytes(id),
				bytes(StoredForms.kind(due)), bytes(StoredForms.argument(due, System.nanoTime())))
			.thenApply((reply) -> number(reply) == 1L);
	}

	/**
	 * Finds one message by id, in whatever state it is.
	 * @param topic the topic
	 * @param id the id
	 * @return what is stored for it, or {@code null} if no message has the id
	 */
	public @Nullable StoredEntry lookup(String topic, String id) {
		return this.reads.lookup(topic, id);
	}

	/**
	 * {@link #lookup(String, String)} without blocking.
	 * @param topic the topic
	 * @param id the id
	 * @return what is stored for it, or {@code null} if no message has the id, once Redis replied
	 */
	public CompletableFuture<@Nullable StoredEntry> lookupAsync(String topic, String id) {
		return this.reads.lookupAsync(topic, id);
	}

	/**
	 * Lists waiting messages (scheduled or waiting for a retry) by due time, then id, a page at a time.
	 * @param topic the topic
	 * @param from the earliest due time listed, or {@code null}
	 * @param to the latest due time listed, or {@code null}
	 * @param after the position after which the page starts (the last entry of the previous page), or {@code null}
	 * for the first page
	 * @param limit the page size, at most {@value RedisMessageStore#CHUNK_SIZE}
	 * @return the page, in order
	 */
	public List<StoredEntry> waiting(String topic, @Nullable Instant from, @Nullable Instant to,
			@Nullable Position after, int limit) {
		return this.reads.waiting(topic, from, to, after, limit);
	}

	/**
	 * Counts a topic's messages by state, and finds the next due time, at one instant.
	 * @param topic the topic
	 * @return the counts
	 */
	public TopicCounts stats(String topic) {
		return this.reads.stats(topic);
	}

	/** {@link #stats(String)} without blocking (the partition check of a producer that does not block). */
	CompletableFuture<TopicCounts> statsAsync(String topic) {
		return this.reads.statsAsync(topic);
	}

	/**
	 * Counts a topic's waiting messages by when they fall due, in consecutive windows (window {@code k}: due at or
	 * after {@code edges[k]} and before {@code edges[k + 1]}), at one instant per script call: a topic whose messages
	 * wait in pages may take several calls.
	 * @param topic the topic (or a partition's name)
	 * @param edges the windows' edges, strictly ascending: at least 2, at most {@value #MAX_WINDOWS} + 1
	 * @return the counts: before the first edge, per window, and at or after the last edge
	 */
	public DueCounts countDue(String topic, List<Instant> edges) {
		return this.reads.countDue(topic, edges);
	}

	/** A {@link #countDue} to step one script call at a time. */
	DueCount dueCount(String topic, List<Instant> edges) {
		return this.reads.dueCount(topic, edges);
	}

}
