package io.github.delayqueue.redis.internal;

import java.util.concurrent.CompletionException;

import io.lettuce.core.RedisCommandExecutionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the script calls read Redis's errors: a refusal of Functions themselves switches the store to scripts; an error
 * of one call (a key or channel the user may not touch, a script's own error) never does, and only "function not
 * found" loads the library.
 */
class ScriptCallsTests {

	@Test
	void aServerOrUserWithoutFunctionsIsARefusal() {
		assertThat(ScriptCalls.isRefused(error("ERR unknown command 'FCALL', with args beginning with: 'x' '1' ")))
			.isTrue();
		// Redis 6.2 quotes with backticks
		assertThat(ScriptCalls.isRefused(error("ERR unknown command `FUNCTION`, with args beginning with: `LOAD`, ")))
			.isTrue();
		assertThat(ScriptCalls.isRefused(error("NOPERM this user has no permissions to run the 'fcall' command")))
			.isTrue();
		assertThat(ScriptCalls.isRefused(
				new CompletionException(error("NOPERM this user has no permissions to run the 'function|load' command"))))
			.isTrue();
	}

	@Test
	void anErrorOfOneCallIsNoRefusal() {
		assertThat(ScriptCalls.isRefused(
				error("NOPERM this user has no permissions to access one of the keys used as arguments")))
			.isFalse();
		assertThat(ScriptCalls.isRefused(error("NOPERM this user has no permissions to access one of the channels "
				+ "used as arguments script: delayqueue_x_schedule, on @user_function:12.")))
			.isFalse();
		assertThat(ScriptCalls.isRefused(error("ERR delayqueue: corrupt bucket count -3 in dq:{t}:meta"))).isFalse();
		assertThat(ScriptCalls.isRefused(error("OOM command not allowed when used memory > 'maxmemory'."))).isFalse();
		assertThat(ScriptCalls.isNotFound(error("ERR Function not found"))).isTrue();
		assertThat(ScriptCalls.isNotFound(error("ERR delayqueue: corrupt bucket count"))).isFalse();
	}

	private static RedisCommandExecutionException error(String message) {
		return new RedisCommandExecutionException(message);
	}

}
