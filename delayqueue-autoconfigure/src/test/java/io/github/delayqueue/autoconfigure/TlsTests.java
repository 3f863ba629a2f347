package io.github.delayqueue.autoconfigure;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.embedded.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * delayqueue over TLS to a {@code redis-server} that only the test's own certificate authority vouches for, through
 * Spring Boot's SSL bundles ({@code spring.data.redis.ssl.bundle}). Needs {@code openssl} (Debian package
 * {@code openssl}) to make the certificates and a {@code redis-server} built with TLS on the {@code PATH} (Debian
 * package {@code redis-server}); skipped, saying which is missing, without them.
 */
class TlsTests {

	@Test
	void scheduleAndConsumeOverTlsWithAnSslBundle(@TempDir Path certificates) throws Exception {
		Path openssl = onPath("openssl");
		assumeThat(openssl).as("needs openssl (Debian package openssl) to make certificates").isNotNull();
		Path redisServer = onPath("redis-server");
		assumeThat(redisServer).as("needs redis-server on the PATH (Debian package redis-server)").isNotNull();
		makeCertificates(openssl, certificates);
		int tlsPort = TestSocketUtils.findAvailableTcpPort();
		RedisServerProcess server;
		try {
			server = RedisServerProcess.onFreePort()
				.binary(redisServer)
				.arguments("--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
						certificates.resolve("server.crt").toString(), "--tls-key-file",
						certificates.resolve("server.key").toString(), "--tls-ca-cert-file",
						certificates.resolve("ca.crt").toString(), "--tls-auth-clients", "no")
				.start();
		}
		catch (IllegalStateException ex) {
			assumeThat(false).as("needs a redis-server built with TLS (Debian package redis-server): " + ex.getMessage())
				.isTrue();
			return;
		}
		try (server) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(SslAutoConfiguration.class, DelayQueueAutoConfiguration.class)))
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsPort,
						"spring.data.redis.ssl.bundle=test-ca",
						"spring.ssl.bundle.pem.test-ca.truststore.certificate=file:"
								+ certificates.resolve("ca.crt"),
						"delayqueue.wake-up.poll-interval=200ms")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					List<String> delivered = new CopyOnWriteArrayList<>();
					context.getBean(DelayedListenerEndpointRegistry.class)
						.registerListenerContainer(SimpleDelayedListenerEndpoint.of("tls", String.class,
								(payload, message) -> delivered.add(message.id())),
								context.getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
										DelayedListenerContainerFactory.class),
								true);
					DelayedQueue queue = context.getBean(DelayedQueue.class);
					queue.schedule("tls", "t-1", "x", Duration.ofMillis(100));
					await().atMost(Duration.ofSeconds(20)).until(() -> delivered.contains("t-1"));
					assertThat(delivered).containsExactly("t-1");
					assertThat(context.getBean(DelayedQueueAdmin.class).stats("tls").waiting()).isZero();
				});
			// and the plain port is not what the application used
			assertThat(tlsPort).isNotEqualTo(server.port());
		}
	}

	private static void makeCertificates(Path openssl, Path directory) throws IOException, InterruptedException {
		run(directory, openssl.toString(), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
				"-out", "ca.crt", "-days", "2", "-subj", "/CN=delayqueue test CA");
		run(directory, openssl.toString(), "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
				"server.csr", "-subj", "/CN=localhost");
		Files.writeString(directory.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		run(directory, openssl.toString(), "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
				"-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf");
	}

	private static void run(Path directory, String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("openssl.log").toFile())
			.start();
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("openssl finished").isTrue();
		assertThat(process.exitValue()).as(List.of(command) + ": " + Files.readString(directory.resolve("openssl.log")))
			.isZero();
	}

	private static Path onPath(String name) {
		for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			Path candidate = Path.of(entry, name);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

}
