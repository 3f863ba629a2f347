package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.delayqueue.InvalidTopicException;
import io.github.delayqueue.Topics;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.adapter.DelayedListenerMessageHandlerMethodFactory;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DelayedListener} methods on beans, makes a {@link MethodDelayedListenerEndpoint} of each and, once all
 * singletons exist, registers them through a {@link DelayedListenerEndpointRegistrar} (after every
 * {@link DelayedListenerConfigurer} bean has configured it) with the {@link DelayedListenerEndpointRegistry}. Every
 * problem it can see (an unsupported signature, an invalid topic or attribute, two listeners for one topic or id, a
 * missing container factory) fails start-up with a message that names the bean and method.
 *
 * @since 0.1.0
 */
public class DelayedListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware, Ordered {

	/** The bean name under which {@link EnableDelayedListeners} registers this post-processor. */
	public static final String BEAN_NAME = DelayQueueConfigUtils.DELAYED_LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME;

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private final Set<MethodKey> processed = ConcurrentHashMap.newKeySet();

	private final DelayedListenerEndpointRegistrar registrar = new DelayedListenerEndpointRegistrar();

	private final HandlerMethodFactoryAdapter handlerMethodFactory = new HandlerMethodFactoryAdapter();

	private @Nullable ConfigurableBeanFactory beanFactory;

	private @Nullable BeanExpressionContext expressionContext;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.registrar.setBeanFactory(beanFactory);
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.beanFactory = configurable;
			this.expressionContext = new BeanExpressionContext(configurable, null);
		}
	}

	/**
	 * Sets the factory that prepares listener methods for invocation (argument resolvers, conversion,
	 * validation), as a {@link DelayedListenerConfigurer} can. By default a
	 * {@link DelayedListenerMessageHandlerMethodFactory} (which also invokes Kotlin {@code suspend} functions) with the
	 * bean factory and the registrar's validator.
	 * @param handlerMethodFactory the factory
	 */
	public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory handlerMethodFactory) {
		this.registrar.setMessageHandlerMethodFactory(handlerMethodFactory);
	}

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof AopInfrastructureBean || bean instanceof DelayedListenerContainer
				|| bean instanceof DelayedListenerEndpointRegistry || bean instanceof DelayedListenerContainerFactory
				|| bean instanceof WakeUpTimer) {
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
		annotated.forEach((method, annotation) -> processListener(bean, beanName, targetClass, method, annotation));
		return bean;
	}

	private void processListener(Object bean, String beanName, Class<?> targetClass, Method method,
			DelayedListener annotation) {
		String description = "'" + beanName + "' method " + targetClass.getSimpleName() + "." + method.getName();
		boolean batch = isBatch(description, annotation);
		if (!batch && (StringUtils.hasText(annotation.batchMaxMessages())
				|| StringUtils.hasText(annotation.batchMaxWait()))) {
			throw failure(description, "sets batchMaxMessages or batchMaxWait, which only a batch listener "
					+ "(batch = \"true\") takes");
		}
		Type payloadType;
		ListenerMethodSignature.Batch batchSignature = null;
		try {
			if (batch) {
				batchSignature = ListenerMethodSignature.batch(method, targetClass);
				payloadType = batchSignature.payloadType();
			}
			else {
				payloadType = ListenerMethodSignature.payloadType(method, targetClass);
			}
		}
		catch (IllegalArgumentException ex) {
			throw failure(description, ex.getMessage());
		}
		Method invocable;
		try {
			invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			throw failure(description, ex.getMessage());
		}
		if (!this.processed.add(new MethodKey(bean, invocable))) {
			return;
		}
		String topic = resolve(annotation.topic());
		try {
			Topics.validate(topic);
		}
		catch (InvalidTopicException ex) {
			throw failure(description, "has an invalid topic: " + ex.getMessage());
		}
		String subscription = resolve(annotation.subscription()).trim();
		if (!subscription.isEmpty()) {
			try {
				topic = Topics.subscriptionName(topic, subscription);
			}
			catch (InvalidTopicException ex) {
				throw failure(description, "has an invalid subscription: " + ex.getMessage());
			}
		}
		MethodDelayedListenerEndpoint endpoint = new MethodDelayedListenerEndpoint(topic, bean, invocable, payloadType,
				"bean " + description);
		endpoint.setMessageHandlerMethodFactory(this.handlerMethodFactory);
		endpoint.setBatchListener(batchSignature != null);
		apply(description, "batchMaxMessages", annotation.batchMaxMessages(), Integer::parseInt,
				endpoint::setBatchMaxMessages);
		apply(description, "batchMaxWait", annotation.batchMaxWait(), DurationFormatterUtils::detectAndParse,
				endpoint::setBatchMaxWait);
		apply(description, "id", annotation.id(), Function.identity(), endpoint::setId);
		apply(description, "autoStartup", annotation.autoStartup(), DelayedListenerAnnotationBeanPostProcessor::bool,
				endpoint::setAutoStartup);
		apply(description, "concurrency", annotation.concurrency(), Integer::parseInt, endpoint::setConcurrency);
		apply(description, "asyncConcurrency", annotation.asyncConcurrency(), Integer::parseInt, endpoint::setAsyncConcurrency);
		apply(description, "maxAttempts", annotation.maxAttempts(), Integer::parseInt, endpoint::setMaxAttempts);
		apply(description, "visibilityTimeout", annotation.visibilityTimeout(), DurationFormatterUtils::detectAndParse,
				endpoint::setVisibilityTimeout);
		apply(description, "handlerTimeout", annotation.handlerTimeout(), DurationFormatterUtils::detectAndParse,
				endpoint::setHandlerTimeout);
		apply(description, "batchSize", annotation.batchSize(), Integer::parseInt, endpoint::setBatchSize);
		apply(description, "leaseAhead", annotation.leaseAhead(), DelayedListenerAnnotationBeanPostProcessor::bool,
				endpoint::setLeaseAhead);
		endpoint.setNotRetryable(Arrays.asList(annotation.notRetryable()));
		if (this.beanFactory != null) {
			BeanFactory factory = this.beanFactory;
			apply(description, "errorHandler", annotation.errorHandler(), Function.identity(),
					(name) -> endpoint.setErrorHandlerBeanName(name, factory));
		}
		String containerFactory = resolve(annotation.containerFactory()).trim();
		if (containerFactory.isEmpty()) {
			this.registrar.registerEndpoint(endpoint);
		}
		else {
			this.registrar.registerEndpoint(endpoint, containerFactory);
		}
	}

	private boolean isBatch(String description, DelayedListener annotation) {
		String text = resolve(annotation.batch()).trim();
		if (text.isEmpty()) {
			return false;
		}
		try {
			return bool(text);
		}
		catch (IllegalArgumentException ex) {
			throw failure(description, "has an invalid batch '" + text + "': " + ex.getMessage());
		}
	}

	private static Boolean bool(String text) {
		if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
			throw new IllegalArgumentException("expected true or false");
		}
		return Boolean.valueOf(text);
	}

	/**
	 * Lets every {@link DelayedListenerConfigurer} configure the registrar, then registers the endpoints found with
	 * the registry.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.nonAnnotatedClasses.clear();
		if (this.beanFactory instanceof ListableBeanFactory listable) {
			listable.getBeanProvider(DelayedListenerConfigurer.class)
				.orderedStream()
				.forEach((configurer) -> configurer.configureDelayedListeners(this.registrar));
		}
		if (this.registrar.getEndpointRegistry() == null) {
			this.registrar.setEndpointRegistry(endpointRegistry());
		}
		this.registrar.afterPropertiesSet();
	}

	private DelayedListenerEndpointRegistry endpointRegistry() {
		if (this.beanFactory == null) {
			throw new IllegalStateException("@DelayedListener methods need a bean factory");
		}
		try {
			return this.beanFactory.getBean(DelayQueueConfigUtils.DELAYED_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME,
					DelayedListenerEndpointRegistry.class);
		}
		catch (BeansException ex) {
			throw new IllegalStateException("@DelayedListener methods need the DelayedListenerEndpointRegistry bean '"
					+ DelayQueueConfigUtils.DELAYED_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME
					+ "' (@EnableDelayedListeners registers it)", ex);
		}
	}

	private <T> void apply(String description, String attribute, String text, Function<String, T> parser,
			Consumer<T> setter) {
		if (!StringUtils.hasText(text)) {
			return;
		}
		String resolved = resolve(text);
		if (!StringUtils.hasText(resolved)) {
			return;
		}
		try {
			setter.accept(parser.apply(resolved.trim()));
		}
		catch (RuntimeException ex) {
			throw failure(description, "has an invalid " + attribute + " '" + resolved + "': " + ex.getMessage());
		}
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

	private static BeanInitializationException failure(String description, @Nullable String problem) {
		return new BeanInitializationException("@DelayedListener on bean " + description + " " + problem);
	}

	/** A bean's method, the bean compared by identity. */
	/**
	 * The type a listener method's payload is read into: its parameter that is not the message's metadata, resolved
	 * against the bean class (for ahead-of-time hints, say); for a batch listener's signature that takes its
	 * messages too, the element type of its payload list.
	 * @param method the listener method
	 * @param targetClass the bean's class
	 * @return the payload type; {@code Object} if the method takes none
	 * @since 1.0.0
	 */
	public static java.lang.reflect.Type payloadTypeOf(Method method, Class<?> targetClass) {
		try {
			return ListenerMethodSignature.payloadType(method, targetClass);
		}
		catch (IllegalArgumentException ex) {
			// perhaps a batch listener's (whether it is one may be a placeholder, unresolved ahead of time)
			return ListenerMethodSignature.batch(method, targetClass).payloadType();
		}
	}

	private record MethodKey(Object bean, Method method) {

		@Override
		public boolean equals(Object other) {
			return other instanceof MethodKey key && key.bean == this.bean && key.method.equals(this.method);
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this.bean) * 31 + this.method.hashCode();
		}

	}

	/**
	 * The factory that endpoints use: the registrar's, if a configurer set one, else a default one made on first
	 * use (after the configurers ran) with the bean factory and the registrar's validator.
	 */
	private final class HandlerMethodFactoryAdapter implements MessageHandlerMethodFactory {

		private volatile @Nullable MessageHandlerMethodFactory delegate;

		@Override
		public InvocableHandlerMethod createInvocableHandlerMethod(Object bean, Method method) {
			MessageHandlerMethodFactory delegate = delegate();
			if (!(delegate instanceof DelayedListenerMessageHandlerMethodFactory)
					&& ListenerMethodSignature.takesBatchMessages(method)) {
				// another factory's payload resolver would pass the payload list in its place
				throw new IllegalStateException("Listener method " + method + " takes a List<DeliveredMessage>, which "
						+ "only a " + DelayedListenerMessageHandlerMethodFactory.class.getName() + " (or a subclass) "
						+ "resolves, but the DelayedListenerConfigurer set a " + delegate.getClass().getName());
			}
			return delegate.createInvocableHandlerMethod(bean, method);
		}

		private MessageHandlerMethodFactory delegate() {
			MessageHandlerMethodFactory current = this.delegate;
			if (current == null) {
				current = DelayedListenerAnnotationBeanPostProcessor.this.registrar.getMessageHandlerMethodFactory();
				if (current == null) {
					DelayedListenerMessageHandlerMethodFactory factory = new DelayedListenerMessageHandlerMethodFactory();
					ConfigurableBeanFactory beans = DelayedListenerAnnotationBeanPostProcessor.this.beanFactory;
					if (beans != null) {
						factory.setBeanFactory(beans);
					}
					var validator = DelayedListenerAnnotationBeanPostProcessor.this.registrar.getValidator();
					if (validator != null) {
						factory.setValidator(validator);
					}
					factory.afterPropertiesSet();
					current = factory;
				}
				this.delegate = current;
			}
			return current;
		}

	}

}
