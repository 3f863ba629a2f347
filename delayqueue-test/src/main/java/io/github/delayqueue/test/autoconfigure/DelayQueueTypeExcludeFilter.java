package io.github.delayqueue.test.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

import io.github.delayqueue.annotation.DelayedListenerConfigurer;

import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.boot.test.context.filter.annotation.StandardAnnotationCustomizableTypeExcludeFilter;
import org.springframework.util.ClassUtils;

/**
 * {@link TypeExcludeFilter} for {@link DelayQueueTest @DelayQueueTest}: component scanning finds
 * {@link DelayedListenerConfigurer} beans, Jackson modules and {@code @JacksonComponent} beans only, and what the
 * test's filters add.
 *
 * @since 0.3.0
 */
public final class DelayQueueTypeExcludeFilter
		extends StandardAnnotationCustomizableTypeExcludeFilter<DelayQueueTest> {

	private static final Set<Class<?>> KNOWN_INCLUDES = knownIncludes();

	DelayQueueTypeExcludeFilter(Class<?> testClass) {
		super(testClass);
	}

	@Override
	protected Set<Class<?>> getKnownIncludes() {
		return KNOWN_INCLUDES;
	}

	private static Set<Class<?>> knownIncludes() {
		Set<Class<?>> includes = new LinkedHashSet<>();
		includes.add(DelayedListenerConfigurer.class);
		ClassLoader classLoader = DelayQueueTypeExcludeFilter.class.getClassLoader();
		for (String name : new String[] { "tools.jackson.databind.JacksonModule",
				"org.springframework.boot.jackson.JacksonComponent" }) {
			if (ClassUtils.isPresent(name, classLoader)) {
				includes.add(ClassUtils.resolveClassName(name, classLoader));
			}
		}
		return Set.copyOf(includes);
	}

}
