package io.github.delayqueue.aot;

import java.io.IOException;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native-image hints, checked with Spring's {@link RuntimeHintsPredicates} (native-image itself is not run).
 */
class AotHintsTests {

	@Test
	void everyLuaScriptIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new DelayQueueRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/delayqueue/redis/*.lua");
		assertThat(scripts).hasSizeGreaterThan(15);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/redis/" + script.getFilename()))
				.as(script.getFilename())
				.accepts(hints);
		}
	}

	@Test
	void theRegistrarsAndTheProcessorAreFoundWhereSpringLooks() {
		SpringFactoriesLoader aot = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");
		assertThat(aot.load(RuntimeHintsRegistrar.class)).extracting(Object::getClass)
			.contains(DelayQueueRuntimeHints.class);
		assertThat(aot.load(BeanRegistrationAotProcessor.class)).extracting(Object::getClass)
			.contains(DelayedListenerBeanRegistrationAotProcessor.class);
	}

	@Test
	void aListenerMethodIsInvocableAndItsPayloadTypeBindable() {
		RuntimeHints hints = contribute(OrderListener.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListener.class, "onTimeout"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(OrderTimeout.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).as("what Jackson reads of it").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(DeliveredMessage.class))
			.as("the metadata parameter is no payload")
			.rejects(hints);
	}

	@Test
	void aBeanWithoutListenersContributesNothing() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(String.class));
		assertThat(new DelayedListenerBeanRegistrationAotProcessor()
			.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
	}

	private static RuntimeHints contribute(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		BeanRegistrationAotContribution contribution = new DelayedListenerBeanRegistrationAotProcessor()
			.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
		assertThat(contribution).isNotNull();
		DefaultGenerationContext context = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(AotHintsTests.class)), new InMemoryGeneratedFiles());
		contribution.applyTo(context, null);
		return context.getRuntimeHints();
	}

	static class OrderListener {

		@DelayedListener(topic = "order-timeout")
		void onTimeout(OrderTimeout timeout, DeliveredMessage message) {
		}

	}

	record OrderTimeout(String orderId, List<Line> lines) {
	}

	record Line(String sku, int quantity) {
	}

}
