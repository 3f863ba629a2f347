package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard behind Spring Security, as the README advises: the application's own rules decide who sees it, and
 * its writes need the CSRF token the page carries.
 */
@SpringBootTest(classes = DashboardSecurityTests.SecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "delayqueue.dashboard.sample-interval=200ms", "delayqueue.dashboard.access=unrestricted" })
class DashboardSecurityTests {

	static final TestRedis redis = TestRedis.builder().build();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		PlainApplication.redis(registry, redis);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@BeforeEach
	void topic() {
		this.queue.schedule("secured", "s-1", "x", Duration.ofHours(1));
		if (this.admin.controls("secured").paused()) {
			this.admin.resume("secured");
		}
	}

	@Test
	void onlyOperatorsSeeTheDashboard() {
		assertThat(new Http(this.port).get("/delayqueue").status()).isEqualTo(401);
		assertThat(new Http(this.port).get("/delayqueue/api/overview").status()).isEqualTo(401);
		assertThat(new Http(this.port).as("viewer", "viewer").get("/delayqueue").status()).isEqualTo(403);
		assertThat(new Http(this.port).as("ops", "ops").get("/delayqueue").status()).isEqualTo(200);
	}

	@Test
	void aWriteWithoutTheCsrfTokenIsRefused() {
		Http ops = new Http(this.port).as("ops", "ops");
		assertThat(ops.get("/delayqueue").status()).isEqualTo(200);
		assertThat(ops.post("/delayqueue/api/topics/secured/pause").status()).isEqualTo(403);
		assertThat(ops.post("/delayqueue/api/topics/secured/pause", null, Map.of("X-CSRF-TOKEN", "forged")).status())
			.isEqualTo(403);
		assertThat(ops.delete("/delayqueue/api/topics/secured/dead").status()).isEqualTo(403);
		assertThat(this.admin.controls("secured").paused()).isFalse();
	}

	@Test
	void aWriteWithThePagesCsrfTokenIsMade() {
		Http ops = new Http(this.port).as("ops", "ops");
		Http.Response page = ops.get("/delayqueue");
		String header = page.data("csrf-header");
		String token = page.data("csrf-token");
		assertThat(header).isEqualTo("X-CSRF-TOKEN");
		assertThat(token).isNotBlank();

		Http.Response paused = ops.post("/delayqueue/api/topics/secured/pause", null, Map.of(header, token));
		assertThat(paused.status()).isEqualTo(200);
		assertThat(paused.json().get("paused").asBoolean()).isTrue();
		assertThat(this.admin.controls("secured").paused()).isTrue();
	}

	/**
	 * An application whose security lets only operators (role {@code OPS}) at the dashboard, with CSRF protection
	 * on (Spring Security's default).
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SecuredApplication {

		@Bean
		SecurityFilterChain security(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.requestMatchers("/delayqueue/**", "/delayqueue")
				.hasRole("OPS")
				.anyRequest()
				.permitAll()).httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}ops").roles("OPS").build(),
					User.withUsername("viewer").password("{noop}viewer").roles("VIEWER").build());
		}

	}

}
