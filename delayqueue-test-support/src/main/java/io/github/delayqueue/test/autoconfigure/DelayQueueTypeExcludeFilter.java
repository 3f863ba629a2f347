package io.github.delayqueue.test.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.annotation.DelayedListenerConfigurer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.core.type.filter.AssignableTypeFilter;
import org.springframework.core.type.filter.RegexPatternTypeFilter;
import org.springframework.core.type.filter.TypeFilter;
import org.springframework.util.ClassUtils;

/**
 * {@link TypeExcludeFilter} for {@link DelayQueueTest @DelayQueueTest}: component scanning finds
 * {@link DelayedListenerConfigurer} beans and Jackson modules only (Jackson 3's {@code JacksonModule} and
 * {@code @JacksonComponent} beans on Spring Boot 4, Jackson 2's {@code Module} and {@code @JsonComponent} beans on
 * Spring Boot 3.5), and what the test's filters add. Registered for each such test class by
 * {@link DelayQueueTestContextCustomizerFactory}, the same way on every Boot line.
 *
 * @since 1.0.0
 */
public final class DelayQueueTypeExcludeFilter extends TypeExcludeFilter {

	private static final Set<Class<?>> KNOWN_INCLUDES = knownIncludes();

	private final boolean useDefaultFilters;

	private final Filter[] includeFilters;

	private final Filter[] excludeFilters;

	DelayQueueTypeExcludeFilter(DelayQueueTest test) {
		this.useDefaultFilters = test.useDefaultFilters();
		this.includeFilters = test.includeFilters();
		this.excludeFilters = test.excludeFilters();
	}

	@Override
	public boolean match(MetadataReader reader, MetadataReaderFactory factory) throws IOException {
		return !(include(reader, factory) && !matchesAny(this.excludeFilters, reader, factory));
	}

	private boolean include(MetadataReader reader, MetadataReaderFactory factory) throws IOException {
		if (matchesAny(this.includeFilters, reader, factory)) {
			return true;
		}
		if (!this.useDefaultFilters) {
			return false;
		}
		for (Class<?> known : KNOWN_INCLUDES) {
			TypeFilter filter = known.isAnnotation() ? annotated(known) : new AssignableTypeFilter(known);
			if (filter.match(reader, factory)) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked")
	private static TypeFilter annotated(Class<?> annotation) {
		return new AnnotationTypeFilter((Class<? extends java.lang.annotation.Annotation>) annotation);
	}

	private static boolean matchesAny(Filter[] filters, MetadataReader reader, MetadataReaderFactory factory)
			throws IOException {
		for (Filter filter : filters) {
			for (TypeFilter typeFilter : typeFilters(filter)) {
				if (typeFilter.match(reader, factory)) {
					return true;
				}
			}
		}
		return false;
	}

	private static List<TypeFilter> typeFilters(Filter filter) {
		List<TypeFilter> typeFilters = new ArrayList<>();
		for (Class<?> type : filter.classes()) {
			typeFilters.add(switch (filter.type()) {
				case ANNOTATION -> annotated(type);
				case ASSIGNABLE_TYPE -> new AssignableTypeFilter(type);
				case CUSTOM -> (TypeFilter) BeanUtils.instantiateClass(type);
				default -> throw new IllegalArgumentException(
						"@DelayQueueTest filters of type " + filter.type() + " name patterns, not classes");
			});
		}
		for (String pattern : filter.pattern()) {
			if (filter.type() != org.springframework.context.annotation.FilterType.REGEX) {
				throw new IllegalArgumentException(
						"@DelayQueueTest filters take patterns of type REGEX only, not " + filter.type());
			}
			typeFilters.add(new RegexPatternTypeFilter(java.util.regex.Pattern.compile(pattern)));
		}
		return typeFilters;
	}

	private static Set<Class<?>> knownIncludes() {
		Set<Class<?>> includes = new LinkedHashSet<>();
		includes.add(DelayedListenerConfigurer.class);
		ClassLoader classLoader = DelayQueueTypeExcludeFilter.class.getClassLoader();
		for (String name : new String[] { "tools.jackson.databind.JacksonModule",
				"org.springframework.boot.jackson.JacksonComponent", "com.fasterxml.jackson.databind.Module",
				"org.springframework.boot.jackson.JsonComponent" }) {
			if (ClassUtils.isPresent(name, classLoader)) {
				includes.add(ClassUtils.resolveClassName(name, classLoader));
			}
		}
		return Set.copyOf(includes);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof DelayQueueTypeExcludeFilter that && this.useDefaultFilters == that.useDefaultFilters
				&& java.util.Arrays.equals(this.includeFilters, that.includeFilters)
				&& java.util.Arrays.equals(this.excludeFilters, that.excludeFilters);
	}

	@Override
	public int hashCode() {
		return java.util.Objects.hash(this.useDefaultFilters, java.util.Arrays.hashCode(this.includeFilters),
				java.util.Arrays.hashCode(this.excludeFilters));
	}

}
