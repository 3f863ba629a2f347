package io.github.delayqueue.annotation;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link DelayedListenerAnnotationBeanPostProcessor} under
 * {@link DelayedListenerAnnotationBeanPostProcessor#BEAN_NAME}, unless a bean of that name exists.
 */
public class DelayedListenerBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		if (!registry.containsBeanDefinition(DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME)) {
			RootBeanDefinition definition = new RootBeanDefinition(DelayedListenerAnnotationBeanPostProcessor.class);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME, definition);
		}
	}

}
