package io.github.delayqueue.docs.dashboard;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/** The dashboard page's security set-up in a WebFlux application. */
@Configuration(proxyBeanMethods = false)
class DashboardReactiveSecurity {

	// tag::security[]
	@Bean
	SecurityWebFilterChain security(ServerHttpSecurity http) {
		return http.authorizeExchange((exchanges) -> exchanges
				.pathMatchers("/delayqueue", "/delayqueue/**").hasRole("OPS")       // the dashboard: operators only
				.anyExchange().authenticated())
			.httpBasic(Customizer.withDefaults())                                  // or your login
			.build();
	}
	// end::security[]

}
