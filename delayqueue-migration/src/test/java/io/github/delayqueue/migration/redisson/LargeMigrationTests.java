package io.github.delayqueue.migration.redisson;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.migration.redisson.ApplicationCodecMigrationTests.KryoOrder;
import io.github.delayqueue.payload.PayloadConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.redisson.codec.Kryo5Codec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A measured run outside CI: {@code migration.elements} Kryo5Codec records (a million for the figures in
 * docs/migration/redisson.md) offered with Redisson, migrated, migrated again. It logs the times, the Redis memory
 * and the test JVM's peak heap; run it with a small heap to see that the migration holds one page at a time:
 *
 * <pre>
 * mvn -B -o -pl delayqueue-migration -am test -Dtest=LargeMigrationTests -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dmigration.elements=1000000 -DargLine=-Xmx256m
 * </pre>
 */
@EnabledIfSystemProperty(named = "migration.elements", matches = "[0-9]+")
class LargeMigrationTests {

	private static final Logger logger = LoggerFactory.getLogger(LargeMigrationTests.class);

	private static final TestRedis redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void migratesInBoundedMemoryAndOnlyOnce() {
		int elements = Integer.parseInt(System.getProperty("migration.elements"));
		redis.flush();
		long writeStart = System.nanoTime();
		try (RedissonQueues redisson = RedissonQueues.connectWithDefaultCodec(redis)) {
			redisson.offerAll("orders", elements, LargeMigrationTests::order,
					(i) -> Duration.ofDays(1).plusMillis(i % 86_400_000));
		}
		Duration written = Duration.ofNanos(System.nanoTime() - writeStart);
		long memoryBefore = usedMemory();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.database=" + redis.database())
			.run((context) -> {
				RedissonDelayedQueueMigration migration = new RedissonDelayedQueueMigration(
						context.getBean(RedisConnectionFactory.class), context.getBean(DelayedQueue.class),
						context.getBean(PayloadConverter.class));
				MigrationRequest request = MigrationRequest.of("orders", "order-timeout",
						ApplicationCodec.of(new Kryo5Codec()));
				resetPeakHeap();
				long start = System.nanoTime();
				MigrationReport first = migration.migrate(request);
				Duration firstRun = Duration.ofNanos(System.nanoTime() - start);
				long peakHeap = peakHeap();
				long memoryAfter = usedMemory();
				start = System.nanoTime();
				MigrationReport second = migration.migrate(request);
				Duration secondRun = Duration.ofNanos(System.nanoTime() - start);

				assertThat(first.scheduled()).isEqualTo(elements);
				assertThat(second.alreadyMigrated()).isEqualTo(elements);
				assertThat(second.scheduled()).isZero();
				assertThat(context.getBean(DelayedQueueAdmin.class).stats("order-timeout").waiting())
					.isEqualTo(elements);
				logger.info("{} elements: written by Redisson in {} s; migrated in {} s ({} elements/s), again in {} s "
						+ "(nothing moved); JVM heap max {} MB, peak used during the first run {} MB; Redis used "
						+ "memory {} MB before, {} MB after (Redisson's keys, the topic and the ledger)", elements,
						written.toSeconds(), firstRun.toMillis() / 1000.0, elements * 1000L / firstRun.toMillis(),
						secondRun.toMillis() / 1000.0, Runtime.getRuntime().maxMemory() >> 20, peakHeap >> 20,
						memoryBefore >> 20, memoryAfter >> 20);
			});
	}

	private static KryoOrder order(int i) {
		return new KryoOrder("order-" + i, new BigDecimal("42.50"), new ArrayList<>(List.of("vip", "eu")),
				Instant.parse("2026-11-27T09:00:00Z").plusSeconds(i));
	}

	private static long usedMemory() {
		return redis.call("INFO", "memory")
			.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.mapToLong((line) -> Long.parseLong(line.substring("used_memory:".length()).trim()))
			.findFirst()
			.orElseThrow();
	}

	private static void resetPeakHeap() {
		System.gc();
		heapPools().forEach(MemoryPoolMXBean::resetPeakUsage);
	}

	private static long peakHeap() {
		return heapPools().stream().mapToLong((pool) -> pool.getPeakUsage().getUsed()).sum();
	}

	private static List<MemoryPoolMXBean> heapPools() {
		return ManagementFactory.getMemoryPoolMXBeans()
			.stream()
			.filter((pool) -> pool.getType() == MemoryType.HEAP)
			.toList();
	}

}
