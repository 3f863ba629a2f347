package io.github.delayqueue.listener.adapter;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolverComposite;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * The {@link DefaultMessageHandlerMethodFactory} of {@code @DelayedListener} methods, which also invokes Kotlin
 * {@code suspend} functions: their arguments are resolved as for any listener method, and they are invoked through
 * Spring's {@link org.springframework.core.CoroutinesUtils}, which gives a {@code Mono} of their result that the
 * container awaits; and resolves a batch listener's {@code List<DeliveredMessage>} parameter. Anything else is made
 * exactly as by its superclass. A {@code DelayedListenerConfigurer} that sets its own factory and has {@code suspend}
 * listeners, or batch listeners taking {@code List<DeliveredMessage>}, uses this one (or a subclass).
 *
 * @since 1.0.0
 */
public class DelayedListenerMessageHandlerMethodFactory extends DefaultMessageHandlerMethodFactory {

	private volatile HandlerMethodArgumentResolverComposite resolvers = new HandlerMethodArgumentResolverComposite();

	@Override
	public void setArgumentResolvers(@Nullable List<HandlerMethodArgumentResolver> argumentResolvers) {
		if (argumentResolvers == null) {
			super.setArgumentResolvers(null);
			this.resolvers = new HandlerMethodArgumentResolverComposite();
			return;
		}
		List<HandlerMethodArgumentResolver> all = withContinuation(argumentResolvers);
		super.setArgumentResolvers(all);
		this.resolvers = new HandlerMethodArgumentResolverComposite().addResolvers(all);
	}

	@Override
	protected List<HandlerMethodArgumentResolver> initArgumentResolvers() {
		List<HandlerMethodArgumentResolver> all = withContinuation(super.initArgumentResolvers());
		this.resolvers = new HandlerMethodArgumentResolverComposite().addResolvers(all);
		return all;
	}

	@Override
	public InvocableHandlerMethod createInvocableHandlerMethod(Object bean, Method method) {
		if (!KotlinDetector.isSuspendingFunction(method)) {
			return super.createInvocableHandlerMethod(bean, method);
		}
		KotlinSuspendingHandlerMethod handlerMethod = new KotlinSuspendingHandlerMethod(bean, method);
		handlerMethod.setMessageMethodArgumentResolvers(this.resolvers);
		return handlerMethod;
	}

	private static List<HandlerMethodArgumentResolver> withContinuation(List<HandlerMethodArgumentResolver> resolvers) {
		List<HandlerMethodArgumentResolver> all = new ArrayList<>(resolvers.size() + 2);
		all.add(new ContinuationArgumentResolver());
		all.add(new DeliveredMessagesArgumentResolver());
		all.addAll(resolvers);
		return all;
	}

}
