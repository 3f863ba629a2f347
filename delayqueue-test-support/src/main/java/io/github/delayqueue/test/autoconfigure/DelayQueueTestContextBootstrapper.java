package io.github.delayqueue.test.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.test.context.SpringBootTestContextBootstrapper;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Bootstraps a {@link DelayQueueTest @DelayQueueTest}: adds the annotation's {@code properties} to the environment.
 */
class DelayQueueTestContextBootstrapper extends SpringBootTestContextBootstrapper {

	@Override
	protected String @Nullable [] getProperties(Class<?> testClass) {
		DelayQueueTest test = TestContextAnnotationUtils.findMergedAnnotation(testClass, DelayQueueTest.class);
		return (test != null) ? test.properties() : null;
	}

}
