package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The non-blocking script calls, whether the connection factory shares its native connection or not: they send
 * {@code EVAL} when Redis has lost the script, and fail a future with Spring's {@link DataAccessException} when the
 * script fails.
 */
class AsyncScriptCallTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "t";

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void aScriptRedisLostIsSentWholeAndStores(boolean shared) throws Exception {
		MessageOperations messages = store(shared).messages();
		assertThat(messages.scheduleAsync(TOPIC, List.of(Scheduling.message("warm", Duration.ofHours(1))))
			.get(10, TimeUnit.SECONDS)).containsExactly(true);
		redis.get().call("SCRIPT", "FLUSH");
		assertThat(messages.scheduleAsync(TOPIC, List.of(Scheduling.message("lone", Duration.ofHours(1))))
			.get(10, TimeUnit.SECONDS)).containsExactly(true);
		redis.get().call("SCRIPT", "FLUSH");
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			batch.add(Scheduling.message("batch-" + i, Duration.ofHours(1)));
		}
		batch.add(Scheduling.message("lone", Duration.ofHours(1)));
		List<Boolean> stored = messages.scheduleAsync(TOPIC, batch).get(10, TimeUnit.SECONDS);
		assertThat(stored.subList(0, 20)).containsOnly(true);
		assertThat(stored.get(20)).as("the id exists").isFalse();
		assertThat(String.valueOf(RedisFixture.waiting(redis.get(), key("pending")).size())).isEqualTo("22");
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void aFailingScriptFailsTheFutureWithADataAccessExceptionAndStoresNothing(boolean shared) {
		MessageOperations messages = store(shared).messages();
		// a bucket count no script accepts: the script refuses to place envelopes it could not find again
		redis.get().call("HSET", key("meta"), "buckets", "-3");
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> messages.scheduleAsync(TOPIC, List.of(Scheduling.message("m", Duration.ofHours(1))))
				.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(DataAccessException.class)
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("corrupt bucket count"));
		assertThat(String.valueOf(RedisFixture.waiting(redis.get(), key("pending")).size())).isEqualTo("0");
	}

	private static RedisMessageStore store(boolean shared) {
		LettuceConnectionFactory factory = redis.fixture().connectionFactory();
		factory.setShareNativeConnection(shared);
		return redis.fixture().store(factory);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
