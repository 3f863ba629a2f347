package io.github.delayqueue.build.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives a test class one real Redis server ({@link TestRedis}) and an empty database for
 * every test. A test that stopped or killed the server gets it started again before the next test.
 *
 * <pre class="code">
 * class MyRedisTests {
 *
 *     &#64;RegisterExtension
 *     static final TestRedisExtension redis = TestRedisExtension.create();
 *
 *     &#64;Test
 *     void works() {
 *         connect(redis.get().host(), redis.get().port());
 *     }
 * }
 * </pre>
 *
 * Test and lifecycle methods may also declare a {@link TestRedis} parameter.
 */
public final class TestRedisExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {

	private final TestRedis.Builder builder;

	private TestRedis redis;

	/**
	 * Creates the extension for a JUnit {@code @ExtendWith}: default settings.
	 */
	public TestRedisExtension() {
		this(TestRedis.builder());
	}

	private TestRedisExtension(TestRedis.Builder builder) {
		this.builder = builder;
	}

	/**
	 * An extension with a server without persistence; an external server is used if one is configured.
	 * @return the extension, to be held in a static field annotated with {@code @RegisterExtension}
	 */
	public static TestRedisExtension create() {
		return new TestRedisExtension(TestRedis.builder());
	}

	/**
	 * An extension whose server is the test's own (never an external one) and persists every write to an
	 * append-only file, for tests that kill and restart Redis.
	 * @return the extension, to be held in a static field annotated with {@code @RegisterExtension}
	 */
	public static TestRedisExtension appendOnly() {
		return new TestRedisExtension(TestRedis.builder().appendOnly(true).allowExternal(false));
	}

	/**
	 * The server, started on first use.
	 * @return the running server
	 */
	public synchronized TestRedis get() {
		if (this.redis == null) {
			this.redis = this.builder.start();
		}
		return this.redis;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		get();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		TestRedis server = get();
		if (server.canRestart() && !server.isRunning()) {
			server.start();
		}
		server.flush();
	}

	@Override
	public synchronized void afterAll(ExtensionContext context) {
		if (this.redis != null) {
			this.redis.close();
			this.redis = null;
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == TestRedis.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return get();
	}

}
