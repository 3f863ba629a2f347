package io.github.delayqueue.dashboard.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;

/**
 * Finds the CSRF token Spring Security put on a request (where the application has Spring Security and CSRF
 * protection on), so that the page can send it with its writes.
 */
final class CsrfTokenLookup {

	private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
			"org.springframework.security.web.csrf.CsrfToken", CsrfTokenLookup.class.getClassLoader());

	private CsrfTokenLookup() {
	}

	/**
	 * The token of a request.
	 * @param request the request
	 * @return the header to send and its value, or {@code null} if the request has no token
	 */
	static @Nullable Token of(HttpServletRequest request) {
		return SECURITY_PRESENT ? SecurityTokens.of(request) : null;
	}

	/**
	 * A CSRF token to send in a header.
	 *
	 * @param headerName the header
	 * @param value the token
	 */
	record Token(String headerName, String value) {
	}

	/** Loaded only where Spring Security is. */
	private static final class SecurityTokens {

		static @Nullable Token of(HttpServletRequest request) {
			if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
				return new Token(token.getHeaderName(), token.getToken());
			}
			return null;
		}

	}

}
