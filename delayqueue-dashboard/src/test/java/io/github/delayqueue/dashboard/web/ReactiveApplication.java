package io.github.delayqueue.dashboard.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A WebFlux application with the starter, Actuator and the dashboard, and without Spring Security (which this
 * module's tests have on their class path). This module's tests have Spring MVC too: the tests that start it set
 * {@code spring.main.web-application-type=reactive}, as an application with both would.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration",
		// the same on Spring Boot 3.5
		"org.springframework.boot.autoconfigure.security.reactive.ReactiveSecurityAutoConfiguration",
		"org.springframework.boot.autoconfigure.security.reactive.ReactiveUserDetailsServiceAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.security.reactive.ReactiveManagementWebSecurityAutoConfiguration" })
class ReactiveApplication {

}
