package io.github.delayqueue.dashboard.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.core.env.Environment;

/**
 * The access Spring Boot Actuator grants the {@code delayqueue} endpoint, by the same rules as the endpoint itself
 * ({@code management.endpoint.delayqueue.access}, {@code management.endpoints.access.default} and
 * {@code .max-permitted}; read-only unless set). Loaded only where Actuator is.
 */
final class ActuatorEndpointAccess {

	private static final EndpointId DELAYQUEUE = EndpointId.of("delayqueue");

	private ActuatorEndpointAccess() {
	}

	/**
	 * Whether the endpoint's writes are open.
	 * @param beanFactory where the application's {@link EndpointAccessResolver} is, if it has one
	 * @param environment the properties to read otherwise
	 * @return {@code true} if the endpoint's access is unrestricted
	 */
	static boolean isUnrestricted(BeanFactory beanFactory, Environment environment) {
		EndpointAccessResolver resolver = beanFactory.getBeanProvider(EndpointAccessResolver.class)
			.getIfAvailable(() -> new PropertiesEndpointAccessResolver(environment));
		return resolver.accessFor(DELAYQUEUE, Access.READ_ONLY) == Access.UNRESTRICTED;
	}

}
