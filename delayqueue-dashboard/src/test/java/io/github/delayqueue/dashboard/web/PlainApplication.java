package io.github.delayqueue.dashboard.web;

import io.github.delayqueue.build.redis.TestRedis;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * An application with the starter, Spring MVC, Actuator and the dashboard, and without Spring Security (which this
 * module's tests have on their class path for {@code DashboardSecurityTests}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
		// the same on Spring Boot 3.5
		"org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
		"org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration",
		"org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration" })
class PlainApplication {

	/** Points the application at a test's own Redis. */
	static void redis(DynamicPropertyRegistry registry, TestRedis redis) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("spring.data.redis.database", redis::database);
	}

}
