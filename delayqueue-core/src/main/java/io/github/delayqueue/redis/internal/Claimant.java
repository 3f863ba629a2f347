package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer of one topic (or partition) as its claims name it, so that a claim whose reply it never received is
 * undone by its next one: a connection that drops after Redis ran a claim loses the reply, and a client that sends
 * the claim again after reconnecting (Lettuce does, by default) would lease more messages under a new token while
 * the first ones waited out their lease. The messages of such a claim go back to the queue at once, uncharged,
 * instead of waiting out the lease and then running one at a time as suspects.
 * <p>
 * Its id is random (128 bits from {@link SecureRandom}); its claims are numbered in order. Claims of one claimant
 * must be made one at a time ({@link LeaseOperations#claim(String, Claimant, java.util.List, int, long, int, boolean,
 * long)}).
 *
 * @since 1.0.0
 */
public final class Claimant {

	private static final SecureRandom RANDOM = new SecureRandom();

	private final byte[] id;

	private final AtomicLong sent = new AtomicLong();

	private final AtomicLong received = new AtomicLong();

	private Claimant(byte[] id) {
		this.id = id;
	}

	/**
	 * A claimant of its own.
	 * @return a claimant with a new random id
	 */
	public static Claimant create() {
		byte[] bits = new byte[16];
		RANDOM.nextBytes(bits);
		return new Claimant(Base64.getUrlEncoder().withoutPadding().encodeToString(bits)
			.getBytes(StandardCharsets.US_ASCII));
	}

	/** Its id as a script argument. */
	byte[] id() {
		return this.id;
	}

	/**
	 * Whether a claim was sent whose reply never arrived: Redis may have run it, and its messages wait for its
	 * claimant's next claim to go back.
	 * @return {@code true} if the last claim's reply is missing
	 */
	public boolean isReplyMissing() {
		return this.sent.get() > this.received.get();
	}

	/** Numbers a claim about to be sent. */
	long next() {
		return this.sent.incrementAndGet();
	}

	/** The number of the last claim whose reply arrived ({@code 0}: none). */
	long lastReceived() {
		return this.received.get();
	}

	/** A claim's reply arrived. */
	void received(long number) {
		this.received.accumulateAndGet(number, Math::max);
	}

	@Override
	public String toString() {
		return "Claimant[" + new String(this.id, StandardCharsets.US_ASCII) + "]";
	}

}
