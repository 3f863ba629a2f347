package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.util.StreamUtils;

/**
 * One of the store's Lua scripts: the shared prelude followed by the script's own text, both fixed resources read
 * once. Runs with {@code EVALSHA}, and with {@code EVAL} when the server does not know the script yet (after a
 * restart or {@code SCRIPT FLUSH}), which also loads it for the next call.
 */
final class Script {

	private static final String PRELUDE = read("prelude");

	private final String name;

	private final byte[] text;

	private final byte[] sha1;

	private Script(String name, String text) {
		this.name = name;
		this.text = text.getBytes(StandardCharsets.UTF_8);
		this.sha1 = DigestUtils.sha1DigestAsHex(text).getBytes(StandardCharsets.US_ASCII);
	}

	static Script load(String name) {
		return new Script(name, PRELUDE + "\n" + read(name));
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
		try {
			return connection.scriptingCommands().evalSha(this.sha1, type, 1, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(this.text, type, 1, keysAndArgs);
		}
	}

	private static boolean isNoScript(Throwable ex) {
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

	private static String read(String name) {
		ClassPathResource resource = new ClassPathResource("io/github/delayqueue/redis/" + name + ".lua");
		try (InputStream in = resource.getInputStream()) {
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the delayqueue script " + resource, ex);
		}
	}

}
