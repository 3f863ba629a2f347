package io.github.delayqueue.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * The store's Lua, read once from fixed resources (no script text is ever built from input), in the two forms Redis
 * runs it:
 * <ul>
 * <li>one script per operation for {@code EVALSHA}: the prelude modules it names on its first line ({@code -- uses:
 * buckets, leases}; {@code base} always, unless it says {@code -- uses: none}), then its own text. Every call runs
 * the whole text, so it defines every helper of those modules again;</li>
 * <li>one Redis Functions library ({@code FUNCTION LOAD} once per server, {@code FCALL} per call) holding every
 * module once and a function per operation. Its helpers are defined when the library loads; a call only sets the
 * names and the state of the modules its operation uses, exactly as the script form does at its start.</li>
 * </ul>
 * Both forms are made from the same text by one rule, so they have the same effects. A module's top level holds
 * helpers ({@code local function}, defined once in the library), constants ({@code local NAME = <literal>}) and its
 * per-call set-up: every other top-level statement, such as {@code local META = BASE .. 'meta'} or the bucket count's
 * read. In the library, a set-up's locals are declared where they stand and assigned by the module's set-up function,
 * which each operation's function calls in module order after clearing what the previous call left.
 * <p>
 * The library's name and its functions' names carry the first 12 hex digits of the library's SHA-1, so instances of
 * different versions share a server without ever calling each other's code.
 */
final class ScriptLibrary {

	/** The prelude's modules, in the order a script gets them; a module may use the ones before it. */
	static final List<String> MODULES = List.of("base", "controls", "claimread", "expiryread", "groups", "priorities",
			"pages", "buckets",
			"leases", "dead", "fanout", "claims", "v1", "format1");

	/** Every operation's script. */
	static final List<String> SCRIPTS = List.of("ack", "cancel", "claim", "control", "dead-list", "dead-purge",
			"dead-replay", "due-count", "extend", "fail", "group-counts", "lookup", "partitions", "recurring-adopt",
			"recurring-put", "release", "replace", "reschedule", "rewind", "schedule", "schedule-plain", "stats",
			"subscribe", "unsubscribe",
			"tick", "waiting");

	/** Operations that only delete, flagged {@code allow-oom}: they free memory, so they run when Redis is full. */
	private static final Set<String> FREEING = Set.of("ack", "cancel", "dead-purge");

	private static final String NONE = "none";

	private static final String VERSION = "%VERSION%";

	/** A top-level constant: kept as it is in the library. */
	private static final Pattern CONSTANT = Pattern
		.compile("^local ([A-Z][A-Z0-9_]*) = (-?[0-9]+|'[^'\\\\]*')\\s*(--.*)?$");

	/** A top-level local assigned per call. */
	private static final Pattern PER_CALL = Pattern.compile("^local ([A-Za-z_][A-Za-z0-9_]*) = (.*)$");

	/** What a key name is made of: the call's key, and names made of it. */
	private static final Pattern NAME_PART = Pattern
		.compile("KEYS\\[1\\]|\\bPENDING\\b|\\bBASE\\b|\\bTOPIC_BASE\\b");

	/**
	 * The only forms a key name may take (made once per key, not per call, so it must depend on the key alone): the
	 * call's key, the prefix it gives, its topic's prefix (the same for a topic, shorter for a subscription) and
	 * whether they differ, and either prefix with a fixed suffix.
	 */
	private static final Pattern NAME = Pattern.compile("KEYS\\[1\\]|string\\.sub\\(PENDING, 1, -8\\)"
			+ "|string\\.match\\(BASE, '\\^\\.-\\}:'\\) or BASE|TOPIC_BASE ~= BASE|(TOPIC_)?BASE \\.\\. '[A-Za-z0-9_:-]*'");

	/** A helper on one line ({@code local function f() return 1 end}, a comment after it or not). */
	private static final Pattern ONE_LINE_FUNCTION = Pattern.compile("^local function .*\\bend\\s*(--.*)?$");

	private static final ScriptLibrary INSTANCE = new ScriptLibrary();

	private final Map<String, Script> scripts = new LinkedHashMap<>();

	private final String name;

	private final byte[] code;

	private ScriptLibrary() {
		Map<String, String> modules = new LinkedHashMap<>();
		for (String module : MODULES) {
			modules.put(module, read("prelude/" + module));
		}
		Map<String, String> bodies = new LinkedHashMap<>();
		Map<String, List<String>> uses = new LinkedHashMap<>();
		for (String script : SCRIPTS) {
			String body = read(script);
			bodies.put(script, body);
			uses.put(script, uses(script, body));
		}
		String library = library(modules, bodies, uses);
		String version = DigestUtils.sha1DigestAsHex(library).substring(0, 12);
		this.name = "delayqueue_" + version;
		this.code = library.replace(VERSION, version).getBytes(StandardCharsets.UTF_8);
		for (String script : SCRIPTS) {
			StringBuilder text = new StringBuilder();
			for (String module : uses.get(script)) {
				text.append(modules.get(module)).append('\n');
			}
			this.scripts.put(script, new Script(script, text.append(bodies.get(script)).toString(),
					functionName(version, script)));
		}
	}

	static ScriptLibrary get() {
		return INSTANCE;
	}

	/** An operation's script. */
	static Script script(String name) {
		Script script = INSTANCE.scripts.get(name);
		Assert.state(script != null, () -> "No delayqueue script " + name);
		return script;
	}

	/** The library's name as {@code FUNCTION LIST} shows it: {@code delayqueue_<version>}. */
	String name() {
		return this.name;
	}

	/** The library's code, as {@code FUNCTION LOAD} takes it. */
	byte[] code() {
		return this.code.clone();
	}

	byte[] codeBytes() {
		return this.code;
	}

	private static String functionName(String version, String script) {
		return "delayqueue_" + version + "_" + script.replace('-', '_');
	}

	/** The modules a script uses, in module order. */
	private static List<String> uses(String script, String body) {
		String first = body.lines().findFirst().orElse("");
		Assert.state(first.startsWith("-- uses:"), () -> "Script " + script + " must start with a '-- uses:' line");
		Set<String> named = new LinkedHashSet<>();
		for (String module : first.substring("-- uses:".length()).split(",")) {
			if (!module.isBlank()) {
				named.add(module.trim());
			}
		}
		if (named.equals(Set.of(NONE))) {
			return List.of();
		}
		for (String module : named) {
			Assert.state(MODULES.contains(module), () -> "Script " + script + " uses an unknown module " + module);
		}
		List<String> used = new ArrayList<>();
		for (String module : MODULES) {
			if (module.equals("base") || named.contains(module)) {
				used.add(module);
			}
		}
		return used;
	}

	private static String library(Map<String, String> modules, Map<String, String> bodies,
			Map<String, List<String>> uses) {
		StringBuilder out = new StringBuilder();
		out.append("#!lua name=delayqueue_").append(VERSION).append('\n');
		out.append("-- delayqueue's scripts as one library: made by ScriptLibrary.java from the prelude modules and "
				+ "the scripts, see there\n");
		out.append("local KEYS, ARGV\n");
		List<String> perCall = new ArrayList<>();
		StringBuilder names = new StringBuilder();
		for (Map.Entry<String, String> module : modules.entrySet()) {
			out.append("-- module ").append(module.getKey()).append('\n');
			out.append(module(module.getKey(), module.getValue(), perCall, names));
		}
		// the key names of every module, made again only when a call's key differs from the previous call's (one
		// topic's calls in a row, the common case, make none)
		out.append("local namedFor = nil\n");
		out.append("local function name(key)\n").append(names).append("namedFor = key\nend\n");
		out.append("local function clear()\n");
		for (String local : perCall) {
			out.append(local).append(" = nil\n");
		}
		out.append("end\n");
		for (Map.Entry<String, String> body : bodies.entrySet()) {
			String script = body.getKey();
			out.append("do\n");
			out.append("local function enter(keys, args)\n");
			out.append("KEYS = keys\nARGV = args\n");
			if (!uses.get(script).isEmpty()) {
				out.append("if keys[1] ~= namedFor then\nname(keys[1])\nend\nclear()\n");
			}
			for (String module : uses.get(script)) {
				out.append("setup_").append(module).append("()\n");
			}
			out.append("end\n");
			out.append("redis.register_function{function_name = '")
				.append(functionName(VERSION, script))
				.append("', flags = {")
				.append(FREEING.contains(script) ? "'allow-oom'" : "")
				.append("}, callback = function(keys, args)\nenter(keys, args)\n");
			out.append(body.getValue()).append("\nend}\n");
			out.append("end\n");
		}
		return out.toString();
	}

	/**
	 * A module as the library holds it: helpers and constants as they are; each other top-level statement moved into
	 * the module's set-up function, its local declared in its place; a key name's assignment (one made of the call's
	 * key) goes to {@code names} instead.
	 */
	private static String module(String module, String text, List<String> perCall, StringBuilder names) {
		StringBuilder out = new StringBuilder();
		StringBuilder setup = new StringBuilder();
		boolean inFunction = false;
		boolean inStatement = false;
		for (String line : text.split("\n", -1)) {
			if (inFunction || inStatement) {
				(inFunction ? out : setup).append(line).append('\n');
				if (line.startsWith("end")) {
					inFunction = false;
					inStatement = false;
				}
				continue;
			}
			if (line.isEmpty() || line.startsWith("--")) {
				out.append(line).append('\n');
				continue;
			}
			if (line.startsWith("local function ")) {
				out.append(line).append('\n');
				inFunction = !ONE_LINE_FUNCTION.matcher(line).matches();
				continue;
			}
			Matcher constant = CONSTANT.matcher(line);
			if (constant.matches()) {
				out.append(line).append('\n');
				continue;
			}
			Matcher local = PER_CALL.matcher(line);
			if (local.matches()) {
				out.append("local ").append(local.group(1)).append('\n');
				String assignment = local.group(1) + " = " + local.group(2) + "\n";
				if (NAME_PART.matcher(local.group(2)).find()) {
					Assert.state(NAME.matcher(local.group(2).trim()).matches(), () -> "The prelude module " + module
							+ " makes " + local.group(1) + " of the call's key in a form the library cannot make once per "
							+ "key (" + local.group(2) + "): assign it inside a function instead");
					names.append(assignment);
				}
				else {
					perCall.add(local.group(1));
					setup.append(assignment);
				}
				continue;
			}
			Assert.state(!Character.isWhitespace(line.charAt(0)),
					() -> "Unexpected indented line at the top level of the prelude module " + module + ": " + line);
			setup.append(line).append('\n');
			inStatement = Arrays.asList("if", "do", "for", "while").contains(line.split("[ (]", 2)[0]);
		}
		out.append("local function setup_").append(module).append("()\n").append(setup).append("end\n");
		return out.toString();
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
