package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.DigestUtils;

/**
 * One of the store's Lua scripts, made by {@link ScriptLibrary} from fixed resources: its text for {@code EVAL}
 * (the prelude modules it uses, then its own text), that text's SHA-1 for {@code EVALSHA}, and the name of its
 * function in the library for {@code FCALL}. On a {@link RedisConnection} it runs with {@code EVALSHA}, and with
 * {@code EVAL} when the server does not know the script yet (after a restart or {@code SCRIPT FLUSH}), which also
 * loads it for the next call; Lettuce's connections call the library's function first (see {@link ScriptCalls}).
 */
public final class Script {

	private static final byte[] PENDING = "pending".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] META = "meta".getBytes(StandardCharsets.US_ASCII);

	private final String name;

	private final byte[] text;

	private final String sha1;

	private final byte[] sha1Bytes;

	private final byte[] function;

	Script(String name, String text, String function) {
		this.name = name;
		this.text = text.getBytes(StandardCharsets.UTF_8);
		this.sha1 = DigestUtils.sha1DigestAsHex(text);
		this.sha1Bytes = this.sha1.getBytes(StandardCharsets.US_ASCII);
		this.function = function.getBytes(StandardCharsets.US_ASCII);
	}

	/** The script of an operation, by the name of its resource ({@code claim} for {@code claim.lua}). */
	public static Script load(String name) {
		return ScriptLibrary.script(name);
	}

	String name() {
		return this.name;
	}

	/**
	 * Runs the script on a connection.
	 * @param connection the connection
	 * @param type the reply's type
	 * @param keysAndArgs the key (the topic's pending set) followed by the arguments
	 * @return the reply
	 */
	<T> T run(RedisConnection connection, ReturnType type, byte[]... keysAndArgs) {
		byte[][] declared = declared(keysAndArgs);
		int keys = declared.length - keysAndArgs.length + 1;
		try {
			return connection.scriptingCommands().evalSha(this.sha1, type, keys, declared);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(this.text, type, keys, declared);
		}
	}

	/** The script's SHA-1 digest, as {@code EVALSHA} takes it. */
	String sha1Hex() {
		return this.sha1;
	}

	/** The script's SHA-1 digest in hex, as the bytes {@code EVALSHA} sends. */
	byte[] sha1Bytes() {
		return this.sha1Bytes;
	}

	/** The name of the script's function in the library, as {@code FCALL} takes it. */
	byte[] function() {
		return this.function;
	}

	/** The script's whole text (prelude modules included), as {@code EVAL} takes it. */
	byte[] text() {
		return this.text;
	}

	static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * A call's keys and arguments with the keys it declares: a pending key's meta key inserted after it
	 * ({@link #metaKeyOf}), else as they are.
	 * @param keysAndArgs the one key, then the arguments
	 * @return the key, its meta key if any, then the arguments
	 */
	static byte[][] declared(byte[][] keysAndArgs) {
		byte[] meta = metaKeyOf(keysAndArgs[0]);
		if (meta == null) {
			return keysAndArgs;
		}
		byte[][] declared = new byte[keysAndArgs.length + 1][];
		declared[0] = keysAndArgs[0];
		declared[1] = meta;
		System.arraycopy(keysAndArgs, 1, declared, 2, keysAndArgs.length - 1);
		return declared;
	}

	/**
	 * The second key a call on a topic's pending key declares: the topic's {@code meta} hash, which lives as long as
	 * the topic does. On a cluster whose slot is moving, Redis runs a script where all its declared keys are, asks
	 * again ({@code TRYAGAIN}) while some have moved and others not, and sends it to the new master once none is
	 * left: with the pending key alone, a topic whose messages all wait in pages (no pending key) was sent to the new
	 * master before its keys were there (docs/reference/scaling.md).
	 * @param key a call's first key
	 * @return the topic's meta key, or {@code null} for a key that is not a pending key
	 */
	static byte @Nullable [] metaKeyOf(byte[] key) {
		int base = key.length - PENDING.length;
		if (base <= 0 || !Arrays.equals(key, base, key.length, PENDING, 0, PENDING.length)) {
			return null;
		}
		byte[] meta = Arrays.copyOf(key, base + META.length);
		System.arraycopy(META, 0, meta, base, META.length);
		return meta;
	}

}
