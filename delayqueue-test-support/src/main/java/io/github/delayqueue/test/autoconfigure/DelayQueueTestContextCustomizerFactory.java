package io.github.delayqueue.test.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Registers the {@link DelayQueueTypeExcludeFilter} of a {@link DelayQueueTest @DelayQueueTest} class as a bean, where
 * {@code @SpringBootApplication}'s component scan asks every {@code TypeExcludeFilter} bean (as Spring Boot's own
 * slices have their filters registered, on each Boot line through a type of its own).
 */
class DelayQueueTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		DelayQueueTest test = TestContextAnnotationUtils.findMergedAnnotation(testClass, DelayQueueTest.class);
		return (test != null) ? new FilterCustomizer(new DelayQueueTypeExcludeFilter(test)) : null;
	}

	/** The filter as a singleton; equal for equal filters, so that such tests share a cached context. */
	private record FilterCustomizer(DelayQueueTypeExcludeFilter filter) implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			context.getBeanFactory().registerSingleton(DelayQueueTypeExcludeFilter.class.getName(), this.filter);
		}

	}

}
