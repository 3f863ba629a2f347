package io.github.delayqueue.docs.dashboard;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** The dashboard page's security set-up. */
@Configuration(proxyBeanMethods = false)
class DashboardSecurity {

	// tag::security[]
	@Bean
	SecurityFilterChain security(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests
				.requestMatchers("/delayqueue", "/delayqueue/**").hasRole("OPS")   // the dashboard: operators only
				.anyRequest().authenticated())
			.httpBasic(Customizer.withDefaults());                                  // or your login
		return http.build();
	}
	// end::security[]

}
