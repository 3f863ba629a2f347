package io.github.delayqueue.dashboard.web;

import reactor.core.publisher.Mono;

import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Finds the CSRF token Spring Security's WebFlux support put on an exchange (where the application has Spring
 * Security and CSRF protection on), so that the page can send it with its writes. Subscribing to the token is what
 * makes Spring Security save it (a deferred token), as a template that renders it would.
 */
final class ReactiveCsrfTokenLookup {

	private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
			"org.springframework.security.web.server.csrf.CsrfToken", ReactiveCsrfTokenLookup.class.getClassLoader());

	private ReactiveCsrfTokenLookup() {
	}

	/**
	 * The token of an exchange.
	 * @param exchange the exchange
	 * @return the header to send and its value, or empty if the exchange has no token
	 */
	static Mono<CsrfTokenLookup.Token> of(ServerWebExchange exchange) {
		return SECURITY_PRESENT ? SecurityTokens.of(exchange) : Mono.empty();
	}

	/** Loaded only where Spring Security is. */
	private static final class SecurityTokens {

		static Mono<CsrfTokenLookup.Token> of(ServerWebExchange exchange) {
			if (exchange.getAttribute(CsrfToken.class.getName()) instanceof Mono<?> token) {
				return token.ofType(CsrfToken.class)
					.map((csrf) -> new CsrfTokenLookup.Token(csrf.getHeaderName(), csrf.getToken()));
			}
			return Mono.empty();
		}

	}

}
