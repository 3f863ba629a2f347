package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.ListenerRecorder;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Forgets what listeners received before each test method, so that a test sees the calls of its own messages only
 * (the application context, and its recorder, are shared by the tests of a class, and cached for other classes).
 * Does nothing for a test whose context has no {@link ListenerRecorder}, and never loads a context.
 *
 * @since 1.0.0
 */
public class DelayQueueTesterResetTestExecutionListener implements TestExecutionListener {

	/**
	 * Creates the listener (registered in {@code META-INF/spring.factories}).
	 */
	public DelayQueueTesterResetTestExecutionListener() {
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (testContext.hasApplicationContext()) {
			ApplicationContext context = testContext.getApplicationContext();
			context.getBeanProvider(ListenerRecorder.class).forEach(ListenerRecorder::clear);
		}
	}

}
