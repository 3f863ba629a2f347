package io.github.delayqueue.redis.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.flag;
import static io.github.delayqueue.redis.internal.Replies.instantOf;
import static io.github.delayqueue.redis.internal.Replies.instantOfMicros;
import static io.github.delayqueue.redis.internal.Replies.nullableBytes;
import static io.github.delayqueue.redis.internal.Replies.number;
import static io.github.delayqueue.redis.internal.Replies.text;

/**
 * What consumers do: lease due messages in batches and settle each lease (acknowledge, retry, bury, extend, hand
 * back), each presenting the lease's token. Obtained from {@link RedisMessageStore#leases()}.
 * <p>
 * An attempt counts when it fails, or, for a suspect (a message whose lease ran out without an outcome), when it is
 * leased; never for a message that only waited in a consumer, nor for a crash it did not cause.
 *
 * @since 1.0.0
 */
public final class LeaseOperations {

	private static final Script CLAIM = Script.load("claim");

	private static final Script ACK = Script.load("ack");

	private static final Script FAIL = Script.load("fail");

	private static final Script EXTEND = Script.load("extend");

	private static final Script RELEASE = Script.load("release");

	private static final byte[] RETRY = bytes("retry");

	private static final byte[] BURY = bytes("bury");

	private static final byte[] RUNNING = bytes("running");

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final byte[] deadMaxCount;

	private final byte[] deadMaxAge;

	private final ClaimDeadlines deadlines;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public LeaseOperations(TopicKeys keys, ScriptExecutor scripts, DeadLetterPolicy deadLetterPolicy,
			RedisConnectionFactory connectionFactory) {
		this.keys = keys;
		this.scripts = scripts;
		this.deadMaxCount = bytes(deadLetterPolicy.maxCount());
		this.deadMaxAge = bytes(deadLetterPolicy.maxAge().toMillis());
		this.deadlines = new ClaimDeadlines(connectionFactory);
	}

	/**
	 * Returns expired leases to the waiting messages (at their original due time, each a suspect), does the topic's
	 * upkeep, then leases up to {@code limit} due messages under one token, suspects allowed. A message whose attempts
	 * are used up goes to the dead letters instead.
	 * @param topic the topic
	 * @param limit how many messages to lease ({@code 0}: only the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @return the leased messages, and the delay to the next due time or lease deadline
	 */
	public Claim claim(String topic, int limit, long leaseMillis, int maxAttempts) {
		return claim(topic, List.of(), limit, leaseMillis, maxAttempts, true);
	}

	/**
	 * What a consumer sends for more messages, in one script call: acknowledges delivered messages, returns expired
	 * leases to the waiting messages (at their original due time, each a suspect: its lease ran out without an
	 * outcome, so it may have killed its consumer), does the topic's upkeep, then leases up to {@code limit} due
	 * messages under one token.
	 * <p>
	 * Messages are leased in a batch without counting an attempt: the consumer holds them in memory and runs them as
	 * handlers come free; a failure counts its attempt when it is reported ({@link #retry}, {@link #bury}). A suspect
	 * is leased only if {@code mayLeaseSuspect}, at most one per claim, with its attempt counted before its handler
	 * starts: the consumer runs it alone, so a message that kills its JVM uses up its own attempts and nobody else's.
	 * A message whose attempts are used up goes to the dead letters instead.
	 * @param topic the topic
	 * @param acks the leases of delivered messages (a lease that is not current is ignored), at most
	 * {@value RedisMessageStore#CHUNK_SIZE}
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @param mayLeaseSuspect whether one suspect may be among the leased messages
	 * @return the leased messages (the suspect marked), and the delay to the next due time or lease deadline
	 * (suspects left behind not counted as due)
	 */
	public Claim claim(String topic, List<Lease> acks, int limit, long leaseMillis, int maxAttempts,
			boolean mayLeaseSuspect) {
		return claim(topic, acks, limit, leaseMillis, maxAttempts, mayLeaseSuspect, 0);
	}

	/**
	 * A claim ({@link #claim(String, List, int, long, int, boolean)}) that also leases the batched messages due within
	 * {@code lookaheadMicros} of the Redis clock, so that they are in the consumer's hands before they fall due (not
	 * in a topic with controls, whose rate counts starts and whose pause or cap stops what is not due yet; and never a
	 * suspect, whose attempt is counted as it is leased). Each {@link ClaimedMessage#dueAt()} may then lie after
	 * {@link Claim#serverTime()}: the consumer must start none before its due time, reckoned from the claim's Redis
	 * time (a local clock started when the reply came runs behind the Redis clock, never ahead of it, so a handler
	 * started by it is never early). A message leased ahead can no longer be cancelled, rescheduled or replaced.
	 * @param topic the topic
	 * @param acks the leases of delivered messages, at most {@value RedisMessageStore#CHUNK_SIZE}
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @param mayLeaseSuspect whether one suspect may be among the leased messages
	 * @param lookaheadMicros how soon a message may fall due and be leased now, in microseconds ({@code 0}: only
	 * messages due now), at most half the lease
	 * @return the leased messages, and the delay to the next due time or lease deadline
	 */
	public Claim claim(String topic, List<Lease> acks, int limit, long leaseMillis, int maxAttempts,
			boolean mayLeaseSuspect, long lookaheadMicros) {
		return claim(topic, null, acks, limit, leaseMillis, maxAttempts, mayLeaseSuspect, lookaheadMicros);
	}

	/**
	 * A claim ({@link #claim(String, List, int, long, int, boolean, long)}) made by a {@link Claimant}: first, if the
	 * claimant's last claim that leased messages is one whose reply it never received (a dropped connection lost it,
	 * or this is that claim sent again by the client after a reconnect), its messages go back to the queue at once,
	 * uncharged (a suspect stays one, its count as before that claim). A claimant makes one claim at a time.
	 * @param topic the topic
	 * @param claimant the consumer making the claim ({@code null}: none, as in the other overloads)
	 * @param acks the leases of delivered messages, at most {@value RedisMessageStore#CHUNK_SIZE}
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @param mayLeaseSuspect whether one suspect may be among the leased messages
	 * @param lookaheadMicros how soon a message may fall due and be leased now, in microseconds ({@code 0}: only
	 * messages due now), at most half the lease
	 * @return the leased messages, and the delay to the next due time or lease deadline
	 */
	public Claim claim(String topic, @Nullable Claimant claimant, List<Lease> acks, int limit, long leaseMillis,
			int maxAttempts, boolean mayLeaseSuspect, long lookaheadMicros) {
		Assert.isTrue(lookaheadMicros >= 0 && lookaheadMicros <= leaseMillis * 500,
				() -> "The lookahead must be between 0 and half the lease, but was " + lookaheadMicros + " µs");
		Assert.isTrue(acks.size() <= RedisMessageStore.CHUNK_SIZE,
				() -> "At most " + RedisMessageStore.CHUNK_SIZE + " acks per call");
		long number = (claimant != null) ? claimant.next() : 0;
		Claim claim = claimOf(this.scripts.run(CLAIM, ReturnType.MULTI,
				ackArgs(this.keys.pending(topic), acks, bytes(limit), bytes(leaseMillis), bytes(maxAttempts),
						this.deadMaxCount, this.deadMaxAge, flag(mayLeaseSuspect),
						this.deadlines.forClaimSentNow(topic), bytes(lookaheadMicros),
						(claimant != null) ? claimant.id() : NONE, bytes(number),
						bytes((claimant != null) ? claimant.lastReceived() : 0))));
		if (claimant != null) {
			claimant.received(number);
		}
		return this.deadlines.remember(topic, claim);
	}

	private static Claim claimOf(List<?> reply) {
		String suspect = text(reply.get(3));
		List<ClaimedMessage> messages = new ArrayList<>((reply.size() - 6) / 5);
		if (reply.size() > 6) {
			long token = number(reply.get(4));
			for (int i = 6; i + 4 < reply.size(); i += 5) {
				Lease lease = new Lease(text(reply.get(i)), token);
				messages.add(new ClaimedMessage(lease, instantOf(reply.get(i + 1)), (int) number(reply.get(i + 2)),
						StoredMessage.decode(nullableBytes(reply.get(i + 3))), lease.id().equals(suspect),
						StoredForms.expiry(nullableBytes(reply.get(i + 4)))));
			}
		}
		return new Claim(instantOfMicros(number(reply.get(0))), messages, number(reply.get(1)),
				(int) number(reply.get(2)), (int) number(reply.get(5)));
	}

	/**
	 * Deletes delivered messages; a lease that is not current is ignored.
	 * @param topic the topic
	 * @param leases the leases of the delivered messages
	 * @return how many messages were deleted
	 */
	public long ack(String topic, List<Lease> leases) {
		return chunked(leases,
				(chunk) -> number(this.scripts.run(ACK, ReturnType.INTEGER, ackArgs(this.keys.pending(topic), chunk))));
	}

	/**
	 * Schedules another attempt of a failed delivery after a delay.
	 * @param topic the topic
	 * @param lease the failed delivery's lease
	 * @param delayMillis the delay before the next attempt
	 * @param error the error to record
	 * @return {@code true} if the retry was scheduled; {@code false} if the lease was not current
	 */
	public boolean retry(String topic, Lease lease, long delayMillis, String error) {
		return retry(topic, lease, delayMillis, error, false);
	}

	/**
	 * Schedules another attempt of a failed delivery after a delay.
	 * @param topic the topic
	 * @param lease the failed delivery's lease
	 * @param delayMillis the delay before the next attempt
	 * @param error the error to record
	 * @param stillRunning whether its handler still runs (it timed out): the message becomes a suspect, since the
	 * handler may yet kill its consumer
	 * @return {@code true} if the retry was scheduled; {@code false} if the lease was not current
	 */
	public boolean retry(String topic, Lease lease, long delayMillis, String error, boolean stillRunning) {
		return fail(topic, lease, RETRY, delayMillis, error, stillRunning) == 1L;
	}

	/**
	 * Moves the message of a failed delivery (or of one that cannot be read) to the dead letters.
	 * @param topic the topic
	 * @param lease the lease
	 * @param error the error to record
	 * @return {@code true} if it was moved; {@code false} if the lease was not current
	 */
	public boolean bury(String topic, Lease lease, String error) {
		return bury(topic, lease, error, false);
	}

	/**
	 * Moves the message of a failed delivery to the dead letters.
	 * @param topic the topic
	 * @param lease the lease
	 * @param error the error to record
	 * @param stillRunning whether its handler still runs (it timed out)
	 * @return {@code true} if it was moved; {@code false} if the lease was not current
	 */
	public boolean bury(String topic, Lease lease, String error, boolean stillRunning) {
		return fail(topic, lease, BURY, 0, error, stillRunning) == 2L;
	}

	private long fail(String topic, Lease lease, byte[] mode, long delayMillis, String error, boolean stillRunning) {
		return number(this.scripts.run(FAIL, ReturnType.INTEGER, this.keys.pending(topic), bytes(lease.id()),
				bytes(lease.token()), mode, bytes(delayMillis * 1000), bytes(error), this.deadMaxCount, this.deadMaxAge,
				stillRunning ? RUNNING : NONE));
	}

	/**
	 * Extends current leases.
	 * @param topic the topic
	 * @param leases the leases of messages still being handled or waiting for a handler
	 * @param leaseMillis the new lease from now
	 * @return the ids whose lease was extended (the others are no longer this caller's)
	 */
	public Set<String> extend(String topic, List<Lease> leases, long leaseMillis) {
		Set<String> extended = new HashSet<>();
		for (int from = 0; from < leases.size(); from += RedisMessageStore.CHUNK_SIZE) {
			List<Lease> chunk = leases.subList(from, Math.min(leases.size(), from + RedisMessageStore.CHUNK_SIZE));
			List<?> ids = this.scripts.run(EXTEND, ReturnType.MULTI,
					leaseArgs(this.keys.pending(topic), chunk, bytes(leaseMillis)));
			ids.forEach((id) -> extended.add(text(id)));
		}
		return extended;
	}

	/**
	 * Hands leased messages back at once: they wait at their due time again, and an attempt that had started is
	 * not counted.
	 * @param topic the topic
	 * @param leases the leases
	 * @return how many were handed back
	 */
	public long release(String topic, List<Lease> leases) {
		return chunked(leases, (chunk) -> number(
				this.scripts.run(RELEASE, ReturnType.INTEGER, leaseArgs(this.keys.pending(topic), chunk))));
	}

	/** Runs a call per chunk of {@value RedisMessageStore#CHUNK_SIZE} items, adding up what each returns. */
	private static <T> long chunked(List<T> items, ToLongFunction<List<T>> call) {
		long total = 0;
		for (int from = 0; from < items.size(); from += RedisMessageStore.CHUNK_SIZE) {
			total += call.applyAsLong(items.subList(from, Math.min(items.size(), from + RedisMessageStore.CHUNK_SIZE)));
		}
		return total;
	}

	private static byte[][] leaseArgs(byte[] key, List<Lease> leases, byte[]... first) {
		return leaseArgs(key, leases, null, first);
	}

	/**
	 * The arguments of the calls that acknowledge (ack, and claims carrying acknowledgements): per lease its id, token
	 * and the id's bucket hash, computed here on the caller's thread so that Redis does not compute a SHA-1 per
	 * delivered message (the script checks it against the bucket: a hash that finds no envelope there is followed by
	 * the id's own).
	 */
	private static byte[][] ackArgs(byte[] key, List<Lease> leases, byte[]... first) {
		return leaseArgs(key, leases, leases.isEmpty() ? null : new BucketHash(), first);
	}

	private static byte[][] leaseArgs(byte[] key, List<Lease> leases, @Nullable BucketHash hashes, byte[]... first) {
		byte[][] args = new byte[1 + first.length + leases.size() * ((hashes != null) ? 3 : 2)][];
		int i = 0;
		args[i++] = key;
		for (byte[] arg : first) {
			args[i++] = arg;
		}
		// the leases of one claim share a token: its text is written once
		long token = 0;
		byte[] tokenBytes = null;
		for (Lease lease : leases) {
			byte[] id = bytes(lease.id());
			args[i++] = id;
			if (tokenBytes == null || lease.token() != token) {
				token = lease.token();
				tokenBytes = bytes(token);
			}
			args[i++] = tokenBytes;
			if (hashes != null) {
				args[i++] = hashes.hash(id);
			}
		}
		return args;
	}

}
