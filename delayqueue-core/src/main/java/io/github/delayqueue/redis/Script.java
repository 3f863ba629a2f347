package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;


import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * One of the store's Lua scripts: the sections of the shared prelude it uses, followed by its own text, all fixed
 * resources read once. A script names the sections it uses on its first line ({@code -- uses: buckets, leases});
 * the {@code base} section is always in, unless the line says {@code -- uses: none} (a script whole by itself). Leaving the others out keeps each call from defining helpers it never
 * calls (every call of a script runs its whole text). Runs with {@code EVALSHA}, and with {@code EVAL} when the
 * server does not know the script yet (after a restart or {@code SCRIPT FLUSH}), which also loads it for the next
 * call.
 */
final class Script {

	private static final String SECTION = "-- @section ";

	/** What a script that uses no part of the prelude, not even {@code base}, names on its {@code -- uses:} line. */
	private static final String NONE = "none";

	private static final Map<String, String> SECTIONS = sections(read("prelude"));

	private final String name;

	private final byte[] text;

	private final String sha1;

	private final byte[] sha1Bytes;

	private Script(String name, String text) {
		this.name = name;
		this.text = text.getBytes(StandardCharsets.UTF_8);
		this.sha1 = DigestUtils.sha1DigestAsHex(text);
		this.sha1Bytes = this.sha1.getBytes(StandardCharsets.US_ASCII);
	}

	static Script load(String name) {
		String body = read(name);
		String uses = body.lines().findFirst().orElse("");
		Assert.state(uses.startsWith("-- uses:"), () -> "Script " + name + " must start with a '-- uses:' line");
		Set<String> used = Arrays.stream(uses.substring("-- uses:".length()).split(","))
			.map(String::trim)
			.collect(Collectors.toCollection(HashSet::new));
		if (used.equals(Set.of(NONE))) {
			// a script that is whole by itself (one whose every call must be as short as it can be)
			return new Script(name, body);
		}
		used.retainAll(SECTIONS.keySet());
		StringBuilder text = new StringBuilder();
		SECTIONS.forEach((section, code) -> {
			if (section.equals("base") || used.contains(section)) {
				text.append(code);
			}
		});
		return new Script(name, text.append('\n').append(body).toString());
	}

	/** The prelude's sections in order, by name; what stands before the first section goes with {@code base}. */
	private static Map<String, String> sections(String prelude) {
		Map<String, String> sections = new LinkedHashMap<>();
		String name = "base";
		StringBuilder code = new StringBuilder();
		for (String line : prelude.split("\n", -1)) {
			if (line.startsWith(SECTION)) {
				sections.merge(name, code.toString(), String::concat);
				name = line.substring(SECTION.length()).split(" ")[0];
				code = new StringBuilder();
			}
			code.append(line).append('\n');
		}
		sections.merge(name, code.toString(), String::concat);
		return sections;
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

	/** The script's SHA-1 digest, as {@code EVALSHA} takes it. */
	String sha1Hex() {
		return this.sha1;
	}

	/** The script's SHA-1 digest in hex, as the bytes {@code EVALSHA} sends. */
	byte[] sha1Bytes() {
		return this.sha1Bytes;
	}

	/** The script's whole text (prelude sections included), as {@code EVAL} takes it. */
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
