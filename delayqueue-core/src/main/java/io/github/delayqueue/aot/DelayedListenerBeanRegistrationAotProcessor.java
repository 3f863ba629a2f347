package io.github.delayqueue.aot;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.annotation.DelayedListenerAnnotationBeanPostProcessor;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Registers, ahead of time, what a native image needs to call an application's {@code @DelayedListener} methods:
 * each method for invocation, and each payload type (with what Jackson reads of it) for binding, since payloads are
 * read into the listener parameter's type by reflection.
 *
 * @since 1.0.0
 */
public class DelayedListenerBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		Map<Method, DelayedListener> listeners = MethodIntrospector.selectMethods(beanClass,
				(MethodIntrospector.MetadataLookup<DelayedListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DelayedListener.class));
		if (listeners.isEmpty()) {
			return null;
		}
		return new Contribution(beanClass, listeners.keySet().toArray(Method[]::new));
	}

	private static final class Contribution implements BeanRegistrationAotContribution {

		private final Class<?> beanClass;

		private final Method[] methods;

		Contribution(Class<?> beanClass, Method[] methods) {
			this.beanClass = beanClass;
			this.methods = methods;
		}

		@Override
		public void applyTo(GenerationContext generationContext, BeanRegistrationCode beanRegistrationCode) {
			RuntimeHints hints = generationContext.getRuntimeHints();
			BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
			for (Method method : this.methods) {
				hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
				Type payloadType = DelayedListenerAnnotationBeanPostProcessor.payloadTypeOf(method, this.beanClass);
				if (payloadType != Object.class) {
					bindings.registerReflectionHints(hints.reflection(), payloadType);
				}
			}
		}

	}

}
