package io.github.delayqueue.annotation;

import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link DelayedListenerAnnotationBeanPostProcessor} and the {@link DelayedListenerEndpointRegistry}
 * under their {@link DelayQueueConfigUtils} names, each unless a bean of that name exists.
 *
 * @since 0.1.0
 */
public class DelayedListenerBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		register(registry, DelayQueueConfigUtils.DELAYED_LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME,
				DelayedListenerAnnotationBeanPostProcessor.class);
		register(registry, DelayQueueConfigUtils.DELAYED_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME,
				DelayedListenerEndpointRegistry.class);
	}

	private static void register(BeanDefinitionRegistry registry, String name, Class<?> type) {
		if (!registry.containsBeanDefinition(name)) {
			RootBeanDefinition definition = new RootBeanDefinition(type);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(name, definition);
		}
	}

}
