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
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.util.HtmlUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard of a WebFlux application behind Spring Security's WebFlux support: the application's own rules
 * decide who sees it, and its writes need the CSRF token the page carries, as on Spring MVC.
 */
@SpringBootTest(classes = ReactiveDashboardSecurityTests.SecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "delayqueue.dashboard.sample-interval=200ms",
				"delayqueue.dashboard.access=unrestricted" })
class ReactiveDashboardSecurityTests {

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
		this.queue.schedule("rx-secured", "s-1", "x", Duration.ofHours(1));
		if (this.admin.controls("rx-secured").paused()) {
			this.admin.resume("rx-secured");
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
		Page page = page(ops);
		assertThat(ops.post("/delayqueue/api/topics/rx-secured/pause").status()).isEqualTo(403);
		assertThat(ops.post("/delayqueue/api/topics/rx-secured/pause", null, Map.of(page.header(), "forged")).status())
			.isEqualTo(403);
		assertThat(this.admin.controls("rx-secured").paused()).isFalse();
	}

	@Test
	void aWriteWithThePagesCsrfTokenIsMade() {
		Http ops = new Http(this.port).as("ops", "ops");
		Page page = page(ops);
		assertThat(page.header()).isEqualTo("X-CSRF-TOKEN");
		assertThat(page.token()).isNotBlank();

		Http.Response paused = ops.post("/delayqueue/api/topics/rx-secured/pause", null,
				Map.of(page.header(), page.token()));
		assertThat(paused.status()).isEqualTo(200);
		assertThat(paused.json().get("paused").asBoolean()).isTrue();
		assertThat(this.admin.controls("rx-secured").paused()).isTrue();
	}

	/**
	 * The page as an operator gets it: the CSRF header and token it carries; the session that holds them stays with
	 * the client's cookies.
	 */
	private Page page(Http ops) {
		Http.Response page = ops.get("/delayqueue");
		assertThat(page.status()).isEqualTo(200);
		String header = page.data("csrf-header");
		String token = page.data("csrf-token");
		assertThat(header).as("the page carries the CSRF header").isNotNull();
		assertThat(token).as("the page carries the CSRF token").isNotNull();
		return new Page(HtmlUtils.htmlUnescape(header), HtmlUtils.htmlUnescape(token));
	}

	record Page(String header, String token) {
	}

	/**
	 * A WebFlux application whose security lets only operators (role {@code OPS}) at the dashboard, with CSRF
	 * protection on (Spring Security's default).
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SecuredApplication {

		@Bean
		SecurityWebFilterChain security(ServerHttpSecurity http) {
			return http
				.authorizeExchange((exchanges) -> exchanges.pathMatchers("/delayqueue", "/delayqueue/**")
					.hasRole("OPS")
					.anyExchange()
					.permitAll())
				.httpBasic(Customizer.withDefaults())
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(
					User.withUsername("ops").password("{noop}ops").roles("OPS").build(),
					User.withUsername("viewer").password("{noop}viewer").roles("VIEWER").build());
		}

	}

}
