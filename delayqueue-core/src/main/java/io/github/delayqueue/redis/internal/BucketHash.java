package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The hash that places a message id in its bucket, as the scripts compute it (the prelude's {@code bodyOf}): the first
 * eight hex digits of the SHA-1 of the id's bytes. A schedule of plain messages sends it with each id, so that {@code
 * schedule-plain.lua} need not compute it in Redis, where it cost 6 % of a lone call. An instance hashes on one thread
 * (a call's arguments); it is not thread-safe.
 */
final class BucketHash {

	private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

	private static final MessageDigest PROTOTYPE = sha1();

	private final MessageDigest sha1 = digest();

	/**
	 * The hash of an id as eight lowercase hex digits, the text {@code string.sub(redis.sha1hex(id), 1, 8)} gives.
	 * One instance serves all the ids of a call.
	 * @param id the id's bytes, exactly as sent to the script
	 * @return eight ASCII bytes
	 */
	byte[] hash(byte[] id) {
		byte[] digest = this.sha1.digest(id);
		byte[] hex = new byte[8];
		for (int i = 0; i < 4; i++) {
			hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
			hex[2 * i + 1] = HEX[digest[i] & 0xf];
		}
		return hex;
	}

	// a clone of a prototype: no provider look-up per call, and no state shared between threads
	private static MessageDigest digest() {
		try {
			return (MessageDigest) PROTOTYPE.clone();
		}
		catch (CloneNotSupportedException ex) {
			return sha1();
		}
	}

	private static MessageDigest sha1() {
		try {
			return MessageDigest.getInstance("SHA-1");
		}
		catch (NoSuchAlgorithmException ex) {
			// every Java platform has SHA-1 (MessageDigest's Javadoc)
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

}
