package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The store's scripts as one Redis Functions library: loaded once per server, loaded again when the server lost it,
 * and with the same effects as the scripts called with {@code EVALSHA}.
 */
class ScriptLibraryTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	@Test
	void everyScriptIsAFunctionOfOneLibraryNamedByItsVersion() {
		ScriptLibrary library = ScriptLibrary.get();
		assertThat(library.name()).matches("delayqueue_[0-9a-f]{12}");
		String code = new String(library.code(), java.nio.charset.StandardCharsets.UTF_8);
		assertThat(code).startsWith("#!lua name=" + library.name() + "\n");
		for (String script : ScriptLibrary.SCRIPTS) {
			assertThat(code).contains("function_name = '" + library.name() + "_" + script.replace('-', '_') + "'");
			assertThat(Script.load(script).text()).isNotEmpty();
		}
	}

	@Test
	void theFirstCallLoadsTheLibraryAndAServerThatLostItGetsItAgain() {
		assumeFunctions();
		redis.get().call("FUNCTION", "FLUSH");
		RedisMessageStore store = redis.store();
		assertThat(store.isRedisFunctions()).isTrue();
		store.messages().schedule("lib", List.of(Scheduling.message("a", Duration.ofHours(1))));
		assertThat(libraries()).containsExactly(ScriptLibrary.get().name());
		redis.get().call("FUNCTION", "FLUSH");
		assertThat(store.messages().cancel("lib", "a")).isTrue();
		assertThat(libraries()).containsExactly(ScriptLibrary.get().name());
		assertThat(store.isRedisFunctions()).isTrue();
		// a second store (another instance) finds it there
		redis.fixture().store(redis.fixture().connectionFactory()).messages().lookup("lib", "a");
		assertThat(libraries()).containsExactly(ScriptLibrary.get().name());
	}

	@Test
	void aLoadTheServerRefusesForNowLeavesTheCallToTheScript() {
		assumeFunctions();
		RedisMessageStore store = redis.store();
		store.messages().schedule("full", List.of(Scheduling.message("a", Duration.ofHours(1)),
				Scheduling.message("b", Duration.ofHours(1))));
		redis.get().call("FUNCTION", "FLUSH");
		// a full server refuses FUNCTION LOAD (it may grow memory) but runs a script's deletes
		redis.get().call("CONFIG", "SET", "maxmemory", "1");
		try {
			assertThat(store.messages().cancel("full", "a")).isTrue();
			assertThat(libraries()).isEmpty();
		}
		finally {
			redis.get().call("CONFIG", "SET", "maxmemory", "0");
		}
		// not a refusal of Functions: the next call loads the library and calls it
		assertThat(store.isRedisFunctions()).isTrue();
		assertThat(store.messages().cancel("full", "b")).isTrue();
		assertThat(libraries()).containsExactly(ScriptLibrary.get().name());
	}

	@Test
	void theLibraryAndTheScriptsLeaveTheSameData() {
		RedisMessageStore functions = redis.store();
		RedisMessageStore scripts = redis.fixture().store(redis.fixture().connectionFactory());
		scripts.setRedisFunctions(false);
		assertThat(scripts.isRedisFunctions()).isFalse();
		exercise(functions, "by-functions");
		exercise(scripts, "by-scripts");
		assertThat(data("by-functions")).containsKeys("pending", "leased", "lease", "buried", "tries", "error", "control")
			.isEqualTo(data("by-scripts"));
	}

	/** Every kind of call once or more: schedule (lone, batched, grouped, with a priority), claims, outcomes. */
	private static void exercise(RedisMessageStore store, String topic) {
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			batch.add(Scheduling.message("m-" + i, Duration.ZERO));
		}
		batch.add(Scheduling.message("g-1", "tenant-a", Duration.ZERO));
		batch.add(Scheduling.message("p-1", 1, null, Duration.ZERO));
		batch.add(Scheduling.message("later", Duration.ofHours(1)));
		store.messages().schedule(topic, batch);
		store.messages().schedule(topic, List.of(Scheduling.message("lone", Duration.ofHours(2))));
		assertThat(store.messages().cancel(topic, "m-0")).isTrue();
		assertThat(store.messages().reschedule(topic, "later", DueTime.in(Duration.ofHours(3).toNanos() / 1000))).isTrue();
		assertThat(store.messages().lookup(topic, "lone")).isNotNull();
		Claim claim = store.leases().claim(topic, 20, 30_000, 3);
		assertThat(claim.messages()).hasSize(20);
		List<ClaimedMessage> claimed = claim.messages();
		assertThat(store.leases().ack(topic, List.of(claimed.get(0).lease(), claimed.get(1).lease()))).isEqualTo(2);
		assertThat(store.leases().retry(topic, claimed.get(2).lease(), 3_600_000, "java.lang.IllegalStateException: x"))
			.isTrue();
		assertThat(store.leases().bury(topic, claimed.get(3).lease(), "java.lang.IllegalStateException: y")).isTrue();
		assertThat(store.leases().extend(topic, List.of(claimed.get(4).lease()), 60_000)).hasSize(1);
		assertThat(store.leases().release(topic, List.of(claimed.get(5).lease()))).isEqualTo(1);
		assertThat(store.deadLetters().list(topic, 0, 10)).hasSize(1);
		store.controls().limit(topic, 100.0, 10, 50L);
		store.controls().pause(topic);
		store.controls().resume(topic);
		assertThat(store.messages().stats(topic).dead()).isEqualTo(1);
	}

	/**
	 * A topic's keys (without the topic's name) with their members or fields, and the values that hold no time or
	 * lease token (the two topics were written at different times).
	 */
	private static Map<String, Object> data(String topic) {
		Map<String, Object> data = new TreeMap<>();
		String prefix = RedisFixture.PREFIX + ":{" + topic + "}:";
		for (String key : RedisFixture.keysOf(redis.get(), topic)) {
			String name = key.substring(prefix.length());
			String type = redis.get().call("TYPE", key);
			Object content = switch (type) {
				case "zset" -> redis.get().call("ZRANGE", key, "0", "-1");
				case "hash" -> fields(key, name);
				case "set" -> sorted(redis.get().call("SMEMBERS", key));
				default -> type;
			};
			data.put(name, content);
		}
		return data;
	}

	private static Object fields(String key, String name) {
		if (name.equals("meta") || name.equals("control") || name.equals("lease") || name.equals("claims")
				|| name.startsWith("body")) {
			// times, tokens, envelopes (which hold the time they were made): the fields only
			return sorted(redis.get().call("HKEYS", key));
		}
		String[] entries = redis.get().call("HGETALL", key).split("\n");
		Map<String, String> fields = new TreeMap<>();
		for (int i = 0; i + 1 < entries.length; i += 2) {
			fields.put(entries[i], entries[i + 1].replaceAll("\\d{13,}", "<time>"));
		}
		return fields;
	}

	private static List<String> sorted(String reply) {
		return (reply == null || reply.isEmpty()) ? List.of() : List.of(reply.split("\n")).stream().sorted().toList();
	}

	private static List<String> libraries() {
		Map<String, String> found = new LinkedHashMap<>();
		String list = redis.get().call("FUNCTION", "LIST");
		String[] lines = (list != null) ? list.split("\n") : new String[0];
		for (int i = 0; i + 1 < lines.length; i++) {
			if (lines[i].equals("library_name")) {
				found.put(lines[i + 1], lines[i + 1]);
			}
		}
		return List.copyOf(found.keySet());
	}

	private static void assumeFunctions() {
		assumeThat(Boolean.getBoolean("delayqueue.test.redis.without-functions"))
			.as("the server has Redis Functions").isFalse();
	}

}
