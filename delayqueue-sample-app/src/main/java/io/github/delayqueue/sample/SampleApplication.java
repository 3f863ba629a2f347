package io.github.delayqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The delayqueue sample: orders that are cancelled when they are not paid in time.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	/**
	 * Runs the sample.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
