package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.migration.redisson.ApplicationCodec;
import io.github.delayqueue.migration.redisson.MigrationReport;
import io.github.delayqueue.migration.redisson.MigrationRequest;
import io.github.delayqueue.migration.redisson.RedissonCodec;
import io.github.delayqueue.migration.redisson.RedissonDelayedQueueMigration;
import io.github.delayqueue.migration.redisson.ValueDecoder;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Runs the Redisson migration once, when the application starts, with the {@code delayqueue.migration.redisson.*}
 * properties. A failure fails the start-up.
 * <p>
 * The codec is {@code delayqueue.migration.redisson.codec}: {@code StringCodec} and {@code JsonJacksonCodec} are
 * read without Redisson; with Redisson on the class path, any other Redisson codec class ({@code Kryo5Codec},
 * {@code org.redisson.codec.SerializationCodec}, a class of the application's) is created and read with as an
 * {@link ApplicationCodec}. Without the property, the application's {@link ValueDecoder} bean (such as
 * {@code ApplicationCodec.of(codec)} with the codec configured as the old application configured it) reads them.
 *
 * @since 1.0.0
 */
public class RedissonMigrationRunner implements ApplicationRunner {

	private final RedissonDelayedQueueMigration migration;

	/** Where Redisson keeps its codecs, for a simple class name. */
	private static final String[] REDISSON_CODEC_PACKAGES = { "org.redisson.codec.", "org.redisson.client.codec." };

	private final RedissonMigrationProperties properties;

	private final @Nullable ValueDecoder codec;

	private final ClassLoader classLoader;

	private @Nullable MigrationReport report;

	/**
	 * Creates a runner that reads the codec from the properties.
	 * @param migration the migration
	 * @param properties what to migrate
	 */
	public RedissonMigrationRunner(RedissonDelayedQueueMigration migration, RedissonMigrationProperties properties) {
		this(migration, properties, null, RedissonMigrationRunner.class.getClassLoader());
	}

	/**
	 * Creates a runner.
	 * @param migration the migration
	 * @param properties what to migrate
	 * @param codec the codec to read the values with when the properties name none, or {@code null}
	 * @param classLoader where a codec class the properties name, and Redisson, are looked up
	 */
	public RedissonMigrationRunner(RedissonDelayedQueueMigration migration, RedissonMigrationProperties properties,
			@Nullable ValueDecoder codec, ClassLoader classLoader) {
		this.migration = migration;
		this.properties = properties;
		this.codec = codec;
		this.classLoader = classLoader;
	}

	@Override
	public void run(ApplicationArguments args) {
		this.report = this.migration.migrate(request(this.properties, this.codec, this.classLoader));
	}

	/**
	 * What the run found and did.
	 * @return the report, or {@code null} before the run
	 */
	public @Nullable MigrationReport getReport() {
		return this.report;
	}

	static MigrationRequest request(RedissonMigrationProperties properties, @Nullable ValueDecoder codecBean,
			ClassLoader classLoader) {
		String queue = properties.getQueue();
		String topic = properties.getTopic();
		String codecName = properties.getCodec();
		Assert.state(queue != null, "Set delayqueue.migration.redisson.queue to the Redisson queue's name");
		Assert.state(topic != null, "Set delayqueue.migration.redisson.topic to the delayqueue topic");
		Assert.state(codecName != null || codecBean != null, "Set delayqueue.migration.redisson.codec to the "
				+ "Redisson codec the queue was written with (StringCodec, JsonJacksonCodec or, with Redisson on "
				+ "the class path, any Redisson codec class such as Kryo5Codec), or define a ValueDecoder bean");
		ValueDecoder codec = (codecName != null) ? codec(codecName.trim(), classLoader) : codecBean;
		MigrationRequest request = MigrationRequest.of(queue, topic, codec).withBatchSize(properties.getBatchSize());
		return properties.isRemoveMigrated() ? request.removingMigrated() : request;
	}

	private static ValueDecoder codec(String name, ClassLoader classLoader) {
		for (RedissonCodec codec : RedissonCodec.values()) {
			if (codec.className().equals(name) || codec.simpleName().equals(name)) {
				return codec;
			}
		}
		if (ClassUtils.isPresent("org.redisson.client.codec.Codec", classLoader)) {
			if (name.contains(".")) {
				return ApplicationCodec.named(name, classLoader);
			}
			for (String redissonPackage : REDISSON_CODEC_PACKAGES) {
				if (ClassUtils.isPresent(redissonPackage + name, classLoader)) {
					return ApplicationCodec.named(redissonPackage + name, classLoader);
				}
			}
		}
		return RedissonCodec.named(name);
	}

}
