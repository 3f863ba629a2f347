package io.github.delayqueue;

import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that gives a test class a real Redis server and every test a fresh {@link RedisMessageStore} on
 * it: the server of a {@link TestRedisExtension} (started once for the class, its database emptied before each test),
 * and per test a {@link RedisFixture} and a store on a connection factory of the fixture's own, both closed after the
 * test.
 *
 * <pre class="code">
 * class MyStoreTests {
 *
 *     &#64;RegisterExtension
 *     static final StoreExtension redis = StoreExtension.create();
 *
 *     &#64;Test
 *     void works() {
 *         redis.store().messages().schedule(...);
 *         assertThat(redis.get().call("ZCARD", ...)).isEqualTo("1");
 *     }
 * }
 * </pre>
 *
 * The class's own {@code @BeforeEach} methods run after the store is made, and its {@code @AfterEach} methods before
 * it is closed.
 */
public final class StoreExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

	private final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisMessageStore store;

	private StoreExtension() {
	}

	/**
	 * An extension on a server without persistence (an external one if one is configured, as
	 * {@link TestRedisExtension#create()}).
	 * @return the extension, to be held in a static field annotated with {@code @RegisterExtension}
	 */
	public static StoreExtension create() {
		return new StoreExtension();
	}

	/**
	 * The server, started on first use.
	 * @return the running server
	 */
	public TestRedis get() {
		return this.redis.get();
	}

	/**
	 * The running test's fixture, to build more parts on the same server (another store, a recorder of wakes); what
	 * it builds is closed with it after the test.
	 * @return the fixture of the running test
	 */
	public RedisFixture fixture() {
		if (this.fixture == null) {
			throw new IllegalStateException("No test is running: the fixture is made before each test");
		}
		return this.fixture;
	}

	/**
	 * The running test's store, on the fixture's prefix ({@link RedisFixture#PREFIX}).
	 * @return the store of the running test
	 */
	public RedisMessageStore store() {
		if (this.store == null) {
			throw new IllegalStateException("No test is running: the store is made before each test");
		}
		return this.store;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.redis.beforeAll(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.redis.beforeEach(context);
		this.fixture = new RedisFixture(this.redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
	}

	@Override
	public void afterEach(ExtensionContext context) {
		RedisFixture used = this.fixture;
		this.fixture = null;
		this.store = null;
		if (used != null) {
			used.close();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.redis.afterAll(context);
	}

}
