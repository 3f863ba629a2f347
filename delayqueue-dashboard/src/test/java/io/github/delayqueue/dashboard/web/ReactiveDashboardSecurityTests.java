package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
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

	private static final Pattern DATA = Pattern.compile("data-csrf-(header|token)=\"([^\"]*)\"");

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

	private WebTestClient client;

	@BeforeEach
	void topic() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
		this.queue.schedule("rx-secured", "s-1", "x", Duration.ofHours(1));
		if (this.admin.controls("rx-secured").paused()) {
			this.admin.resume("rx-secured");
		}
	}

	@Test
	void onlyOperatorsSeeTheDashboard() {
		this.client.get().uri("/delayqueue").exchange().expectStatus().isUnauthorized();
		this.client.get().uri("/delayqueue/api/overview").exchange().expectStatus().isUnauthorized();
		this.client.get()
			.uri("/delayqueue")
			.headers((headers) -> headers.setBasicAuth("viewer", "viewer"))
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.get()
			.uri("/delayqueue")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectStatus()
			.isOk();
	}

	@Test
	void aWriteWithoutTheCsrfTokenIsRefused() {
		Page page = page();
		// each refused write on a connection of its own: Reactor Netty's client pool has been seen to hand the next
		// request a connection the server answered early (403 before any body), which then never answers
		this.client.post()
			.uri("/delayqueue/api/topics/rx-secured/pause")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.header(HttpHeaders.CONNECTION, "close")
			.cookie(page.session().getName(), page.session().getValue())
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.post()
			.uri("/delayqueue/api/topics/rx-secured/pause")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.header(page.header(), "forged")
			.header(HttpHeaders.CONNECTION, "close")
			.cookie(page.session().getName(), page.session().getValue())
			.exchange()
			.expectStatus()
			.isForbidden();
		assertThat(this.admin.controls("rx-secured").paused()).isFalse();
	}

	@Test
	void aWriteWithThePagesCsrfTokenIsMade() {
		Page page = page();
		assertThat(page.header()).isEqualTo("X-CSRF-TOKEN");
		assertThat(page.token()).isNotBlank();

		this.client.post()
			.uri("/delayqueue/api/topics/rx-secured/pause")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.header(page.header(), page.token())
			.cookie(page.session().getName(), page.session().getValue())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paused")
			.isEqualTo(true);
		assertThat(this.admin.controls("rx-secured").paused()).isTrue();
	}

	/** The page as an operator gets it: the CSRF header and token it carries, and the session that holds them. */
	private Page page() {
		EntityExchangeResult<String> result = this.client.get()
			.uri("/delayqueue")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult();
		String header = null;
		String token = null;
		Matcher matcher = DATA.matcher(result.getResponseBody());
		while (matcher.find()) {
			String value = HtmlUtils.htmlUnescape(matcher.group(2));
			if (matcher.group(1).equals("header")) {
				header = value;
			}
			else {
				token = value;
			}
		}
		assertThat(header).as("the page carries the CSRF header").isNotNull();
		assertThat(token).as("the page carries the CSRF token").isNotNull();
		ResponseCookie session = result.getResponseCookies().getFirst("SESSION");
		assertThat(session).as("the token is saved in the session").isNotNull();
		return new Page(header, token, session);
	}

	record Page(String header, String token, ResponseCookie session) {
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
