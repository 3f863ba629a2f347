package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.InvalidTopicException;
import io.github.delayqueue.Topics;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.listener.adapter.MethodDelayedMessageHandler;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.support.MessageHeaderAccessor;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DelayedListener} methods on beans and, once all singletons exist, registers each with the
 * application's {@link DelayedListenerContainer}. Every problem it can see (an unsupported signature, an invalid
 * topic or attribute, two listeners for one topic) fails start-up with a message that names the bean and method.
 */
public class DelayedListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware, Ordered {

	/** The bean name under which {@link EnableDelayedListeners} registers this post-processor. */
	public static final String BEAN_NAME = "io.github.delayqueue.annotation.internalDelayedListenerAnnotationProcessor";

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private final Map<String, Endpoint> endpointsByTopic = new LinkedHashMap<>();

	private @Nullable ConfigurableBeanFactory beanFactory;

	private @Nullable BeanExpressionContext expressionContext;

	private @Nullable MessageHandlerMethodFactory handlerMethodFactory;

	private boolean registered;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.beanFactory = configurable;
			this.expressionContext = new BeanExpressionContext(configurable, null);
		}
	}

	/**
	 * Sets the factory that prepares listener methods for invocation (argument resolvers, conversion,
	 * validation). By default a {@link DefaultMessageHandlerMethodFactory} with the bean factory.
	 * @param handlerMethodFactory the factory
	 */
	public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory handlerMethodFactory) {
		this.handlerMethodFactory = handlerMethodFactory;
	}

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof AopInfrastructureBean || bean instanceof DelayedListenerContainer
				|| bean instanceof DelayedMessageScheduler) {
			return bean;
		}
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.nonAnnotatedClasses.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, DelayedListener.class)) {
			return bean;
		}
		Map<Method, DelayedListener> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DelayedListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DelayedListener.class));
		if (annotated.isEmpty()) {
			this.nonAnnotatedClasses.add(targetClass);
			return bean;
		}
		annotated.forEach((method, annotation) -> addEndpoint(bean, beanName, targetClass, method, annotation));
		return bean;
	}

	private void addEndpoint(Object bean, String beanName, Class<?> targetClass, Method method,
			DelayedListener annotation) {
		String description = "'" + beanName + "' method " + targetClass.getSimpleName() + "." + method.getName();
		if (Modifier.isStatic(method.getModifiers())) {
			throw failure(description, "must not be static");
		}
		if (method.getReturnType() != void.class) {
			throw failure(description, "must return void (returning acknowledges the message), but returns "
					+ method.getReturnType().getName());
		}
		Method invocable;
		try {
			invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			throw failure(description, ex.getMessage());
		}
		Type payloadType = payloadType(method, targetClass, description);
		String topic = resolve(annotation.topic());
		try {
			Topics.validate(topic);
		}
		catch (InvalidTopicException ex) {
			throw failure(description, "has an invalid topic: " + ex.getMessage());
		}
		Endpoint endpoint = new Endpoint(bean, invocable, description, topic, payloadType, annotation);
		synchronized (this.endpointsByTopic) {
			Endpoint existing = this.endpointsByTopic.putIfAbsent(topic, endpoint);
			if (existing != null) {
				if (existing.bean() == bean && existing.method().equals(invocable)) {
					return;
				}
				throw failure(description, "listens to topic '" + topic + "', which already has the listener "
						+ existing.description() + "; an application has one listener per topic");
			}
			if (this.registered) {
				register(endpoint, container());
			}
		}
	}

	private static Type payloadType(Method method, Class<?> targetClass, String description) {
		Type payloadType = null;
		int payloadIndex = -1;
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
			if (type == DeliveredMessage.class || MessageHeaders.class.isAssignableFrom(type)
					|| MessageHeaderAccessor.class.isAssignableFrom(type) || parameter.hasParameterAnnotation(Header.class)
					|| parameter.hasParameterAnnotation(Headers.class)) {
				continue;
			}
			if (payloadIndex >= 0) {
				throw failure(description, "has two payload parameters (" + (payloadIndex + 1) + " and " + (i + 1)
						+ "); a listener takes one payload, plus optionally DeliveredMessage, @Header, @Headers, "
						+ "MessageHeaders");
			}
			payloadIndex = i;
			ResolvableType resolvable = ResolvableType.forMethodParameter(method, i, targetClass);
			if (Message.class.isAssignableFrom(type)) {
				ResolvableType generic = resolvable.as(Message.class).getGeneric(0);
				payloadType = (generic.resolve() != null) ? generic.getType() : Object.class;
			}
			else {
				payloadType = resolvable.getType();
			}
		}
		return (payloadType != null) ? payloadType : Object.class;
	}

	@Override
	public void afterSingletonsInstantiated() {
		synchronized (this.endpointsByTopic) {
			this.registered = true;
			if (this.endpointsByTopic.isEmpty()) {
				return;
			}
			DelayedListenerContainer container = container();
			this.endpointsByTopic.values().forEach((endpoint) -> register(endpoint, container));
		}
	}

	private void register(Endpoint endpoint, DelayedListenerContainer container) {
		DelayedListener annotation = endpoint.annotation();
		ListenerOptions.Builder options = container.getDefaultOptions().toBuilder();
		apply(endpoint, "concurrency", annotation.concurrency(), Integer::parseInt, options::concurrency);
		apply(endpoint, "maxAttempts", annotation.maxAttempts(), Integer::parseInt, options::maxAttempts);
		apply(endpoint, "visibilityTimeout", annotation.visibilityTimeout(), DurationFormatterUtils::detectAndParse,
				options::visibilityTimeout);
		apply(endpoint, "batchSize", annotation.batchSize(), Integer::parseInt, options::batchSize);
		options.notRetryable(annotation.notRetryable());
		apply(endpoint, "errorHandler", annotation.errorHandler(), this::errorHandler, options::errorHandler);
		MethodDelayedMessageHandler handler = new MethodDelayedMessageHandler(
				handlerMethodFactory().createInvocableHandlerMethod(endpoint.bean(), endpoint.method()),
				endpoint.description());
		try {
			container.register(new ListenerRegistration<>(endpoint.topic(), endpoint.payloadType(), handler,
					options.build()));
		}
		catch (IllegalStateException ex) {
			throw failure(endpoint.description(), ex.getMessage());
		}
	}

	private <T> void apply(Endpoint endpoint, String attribute, String text, Function<String, T> parser,
			Function<T, ListenerOptions.Builder> setter) {
		if (!StringUtils.hasText(text)) {
			return;
		}
		String resolved = resolve(text);
		try {
			setter.apply(parser.apply(resolved.trim()));
		}
		catch (RuntimeException ex) {
			throw failure(endpoint.description(),
					"has an invalid " + attribute + " '" + resolved + "': " + ex.getMessage());
		}
	}

	private DeliveryErrorHandler errorHandler(String beanName) {
		Assert.state(this.beanFactory != null, "No bean factory to look the error handler up in");
		return this.beanFactory.getBean(beanName, DeliveryErrorHandler.class);
	}

	private String resolve(String value) {
		if (this.beanFactory == null) {
			return value;
		}
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		if (resolved != null && this.beanFactory.getBeanExpressionResolver() != null) {
			Object evaluated = this.beanFactory.getBeanExpressionResolver().evaluate(resolved, this.expressionContext);
			return (evaluated != null) ? evaluated.toString() : "";
		}
		return (resolved != null) ? resolved : value;
	}

	private DelayedListenerContainer container() {
		if (this.beanFactory == null) {
			throw new IllegalStateException("@DelayedListener methods need a bean factory");
		}
		try {
			return this.beanFactory.getBean(DelayedListenerContainer.class);
		}
		catch (BeansException ex) {
			throw new IllegalStateException("@DelayedListener methods need exactly one DelayedListenerContainer bean "
					+ "(the delayqueue auto-configuration provides one when a RedisConnectionFactory exists)", ex);
		}
	}

	private MessageHandlerMethodFactory handlerMethodFactory() {
		if (this.handlerMethodFactory == null) {
			DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();
			if (this.beanFactory != null) {
				factory.setBeanFactory(this.beanFactory);
			}
			factory.afterPropertiesSet();
			this.handlerMethodFactory = factory;
		}
		return this.handlerMethodFactory;
	}

	private static BeanInitializationException failure(String description, @Nullable String problem) {
		return new BeanInitializationException("@DelayedListener on bean " + description + " " + problem);
	}

	private record Endpoint(Object bean, Method method, String description, String topic, Type payloadType,
			DelayedListener annotation) {
	}

}
