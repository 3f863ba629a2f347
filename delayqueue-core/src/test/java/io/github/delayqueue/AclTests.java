package io.github.delayqueue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.build.redis.TestRedisCluster;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The whole flow as a Redis user restricted by the ACL rule the documentation gives (docs/reference/security.md):
 * the commands delayqueue sends and its scripts run, on keys and channels under {@code dq:} only.
 */
class AclTests {

	/** The security page's rule (docs/reference/security.md), word for word (after {@code ACL SETUSER delayqueue on >secret}). */
	static final String RULE = "resetkeys ~dq:* resetchannels &dq:* nocommands "
			+ "+fcall +function|load +evalsha +eval +sadd +srem +scard +smismember +smembers +subscribe +unsubscribe +ping +hello +auth "
			+ "+client|setname +wait +time +exists +del +hget +hmget +hgetall +hexists +hset +hsetnx +hdel +hlen "
			+ "+zadd +zrem +zcard +zcount +zscore +zrange +zrangebyscore +zrank +publish "
			+ "+hincrby +zrangebylex +zrevrangebylex +zremrangebyrank";

	/** What a Redis Cluster adds to it: the commands Lettuce learns the topology with. */
	static final String CLUSTER_RULE = "+cluster|nodes";

	private static final Duration WAIT = Duration.ofSeconds(20);

	private TestRedis redis;

	private LettuceConnectionFactory connectionFactory;

	private WakeUpTimer scheduler;

	private DelayedListenerContainer container;

	@BeforeEach
	void setUp() {
		// a server of its own: the test changes its users
		this.redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();
		this.redis.start();
		String[] command = ("ACL SETUSER delayqueue on >secret " + RULE).split(" ");
		assertThat(this.redis.call(command)).isEqualTo("OK");
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(this.redis.host(),
				this.redis.port());
		configuration.setUsername("delayqueue");
		configuration.setPassword("secret");
		this.connectionFactory = new LettuceConnectionFactory(configuration);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void tearDown() {
		if (this.container != null) {
			this.container.stop();
		}
		if (this.scheduler != null) {
			this.scheduler.stop();
		}
		this.connectionFactory.destroy();
		this.redis.close();
	}

	@Test
	void everythingWorksAsARestrictedUser() {
		assumeFunctions();
		runsTheWholeFlow();
		assertThat(calls("fcall")).as("calls of the library's functions").isPositive();
		assertThat(calls("evalsha") + calls("eval")).as("script calls").isZero();
	}

	@Test
	void aUserWithoutFunctionsRunsEverythingWithScripts() {
		// a rule from before 0.3 (or a server that refuses Functions): the same flow through EVALSHA
		assumeFunctions();
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-fcall", "-function")).isEqualTo("OK");
		runsTheWholeFlow();
		assertThat(calls("evalsha")).as("script calls").isPositive();
		assertThat(this.redis.call("FUNCTION", "LIST")).as("libraries loaded").isEmpty();
	}

	@Test
	void aUserWhoMayCallButNotLoadFunctionsRunsEverythingWithScripts() {
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-function|load")).isEqualTo("OK");
		runsTheWholeFlow();
		assertThat(calls("evalsha")).as("script calls").isPositive();
	}

	/** The build's run against servers without Functions has nothing to take away. */
	private static void assumeFunctions() {
		org.assertj.core.api.Assumptions.assumeThat(Boolean.getBoolean("delayqueue.test.redis.without-functions"))
			.as("the server has Redis Functions")
			.isFalse();
	}

	/** The calls of a command so far, from {@code INFO commandstats}. */
	private long calls(String command) {
		for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_" + command + ":")) {
				String field = line.substring(line.indexOf("calls=") + "calls=".length());
				return Long.parseLong(field.substring(0, field.indexOf(',')));
			}
		}
		return 0;
	}

	private void runsTheWholeFlow() {
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
		this.scheduler = new WakeUpTimer(this.connectionFactory, Duration.ofMillis(5),
				Duration.ofMillis(200));
		this.scheduler.start();
		Recorder<String> recorder = new Recorder<>();
		this.container = new DefaultDelayedListenerContainerFactory(store, PayloadConverter.json(),
				this.scheduler)
			.createListenerContainer(SimpleDelayedListenerEndpoint.from(ListenerRegistration.of("acl", String.class,
					(payload, message) -> {
						if (message.id().startsWith("bad")) {
							throw new IllegalStateException("bad");
						}
						recorder.handle(payload, message);
					}, ListenerOptions.builder().maxAttempts(2).errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 5))).build())));
		this.container.start();

		queue.schedule("acl", "m-1", "x", Duration.ofMillis(50));
		queue.scheduleAll(List.of(ScheduleRequest.builder("acl", "y").id("m-2").delay(Duration.ofHours(1)).build(),
				ScheduleRequest.builder("acl", "z").id("m-3").delay(Duration.ofHours(1)).build()));
		assertThat(queue.reschedule("acl", "m-2", Duration.ZERO)).isTrue();
		assertThat(queue.cancel("acl", "m-3")).isTrue();
		queue.schedule("acl", "bad-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> recorder.count("m-1") == 1 && recorder.count("m-2") == 1);
		await().atMost(WAIT).until(() -> admin.stats("acl").dead() == 1);
		assertThat(admin.deadLetters("acl", 0, 10)).extracting(DeadLetter::id).containsExactly("bad-1");
		assertThat(admin.purgeDeadLetter("acl", "bad-1")).isTrue();
		assertThat(admin.knownTopics()).contains("acl");
		assertThat(admin.partitions("acl")).isEqualTo(1);
	}

	@Test
	void aUserGivenTheRuleOf02StillCountsATopicButNoRetryingMessage() {
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
		queue.schedule("acl-old", "r-1", "x", Duration.ZERO);
		ClaimedMessage claimed = store.leases().claim("acl-old", 10, 30_000, 5).messages().get(0);
		assertThat(store.leases().retry("acl-old", claimed.lease(), 3_600_000, "java.lang.IllegalStateException: x"))
			.isTrue();
		assertThat(admin.stats("acl-old").retrying()).isEqualTo(1);
		// the 0.2 rule had no +hlen
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-hlen")).isEqualTo("OK");
		TopicStats stats = admin.stats("acl-old");
		assertThat(stats.waiting()).isEqualTo(1);
		assertThat(stats.retrying()).isZero();
	}

	@Test
	void aUserGivenTheRuleOf02StillGrowsAndShrinksTheBucketsByCountingTheSets() {
		// the buckets are sized with HLEN; without +hlen the scripts count pending, leased and buried as 0.2 did
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-hlen")).isEqualTo("OK");
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		for (int i = 0; i < 200; i++) {
			queue.schedule("acl-grow", "lone-" + i, "x", Duration.ZERO);
		}
		queue.scheduleAll(IntStream.range(0, 500)
			.mapToObj((i) -> ScheduleRequest.builder("acl-grow", "x").id("batch-" + i).build())
			.toList());
		assertThat(Integer.parseInt(this.redis.call("HGET", "dq:{acl-grow}:meta", "buckets"))).isBetween(25, 45);
		int leased = 0;
		List<ClaimedMessage> claimed;
		do {
			claimed = store.leases().claim("acl-grow", 100, 30_000, 5).messages();
			store.leases().ack("acl-grow", claimed.stream().map(ClaimedMessage::lease).toList());
			leased += claimed.size();
		}
		while (!claimed.isEmpty());
		assertThat(leased).isEqualTo(700);
		for (int i = 0; i < 5; i++) {
			store.leases().claim("acl-grow", 0, 30_000, 5);
		}
		assertThat(this.redis.call("HGET", "dq:{acl-grow}:meta", "buckets")).isNull();
	}

	@Test
	void aUserWhoseRuleLacksThePagesCommandsSchedulesIntoPendingAndChangesNothingElse() {
		// 0.2's rule had none of the commands the pages (stored format 5) use: a schedule finds it out before it writes
		// anything, and its messages wait in pending
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-hincrby", "-zrangebylex", "-zrevrangebylex",
				"-zremrangebyrank")).isEqualTo("OK");
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		assertThat(queue.schedule("acl-pages", "lone", "x", Duration.ZERO)).isTrue();
		queue.scheduleAll(IntStream.range(0, 20)
			.mapToObj((i) -> ScheduleRequest.builder("acl-pages", "x").id("batch-" + i).build())
			.toList());
		assertThat(this.redis.call("ZCARD", "dq:{acl-pages}:pending")).isEqualTo("21");
		assertThat(this.redis.call("EXISTS", "dq:{acl-pages}:pages")).isEqualTo("0");
		assertThat(queue.cancel("acl-pages", "batch-0")).isTrue();
		assertThat(store.leases().claim("acl-pages", 100, 30_000, 5).messages()).hasSize(20);
	}

	@Test
	void aUserWhoseRuleLacksZrankStillSchedulesLoneMessagesAndWakesConsumers() {
		// the rule before 0.3's lone schedule read the head with ZRANGE only
		assertThat(this.redis.call("ACL", "SETUSER", "delayqueue", "-zrank")).isEqualTo("OK");
		assertThat(this.redis.call("ACL", "LOG", "RESET")).isEqualTo("OK");
		RedisMessageStore store = new RedisMessageStore(this.connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
		// the pending set's lone schedule asks ZRANK (a page's reads the head of the first page)
		store.setStoredFormat(2);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
		List<String> wakes = new CopyOnWriteArrayList<>();
		RedisConnection subscriber = this.connectionFactory.getConnection();
		try {
			subscriber.subscribe((message, pattern) -> wakes.add(new String(message.getBody(), StandardCharsets.UTF_8)),
					"dq:{acl-head}:wake".getBytes(StandardCharsets.UTF_8));
			queue.schedule("acl-head", "h-1", "x", Duration.ofHours(1));
			queue.schedule("acl-head", "h-2", "x", Duration.ofHours(2));
			queue.schedule("acl-head", "h-0", "x", Duration.ofMinutes(30));
			// the new earliest woke the consumers, the later one did not
			await().atMost(WAIT).until(() -> wakes.size() == 2);
			assertThat(Long.parseLong(wakes.get(0))).isBetween(3_590_000L, 3_600_000L);
			assertThat(Long.parseLong(wakes.get(1))).isBetween(1_790_000L, 1_800_000L);
		}
		finally {
			subscriber.close();
		}
		assertThat(admin.stats("acl-head").waiting()).isEqualTo(3);
		assertThat(this.redis.call("ACL", "LOG")).as("the refused ZRANK").contains("zrank");
	}

	@Test
	void onAClusterTheRuleNeedsTheTopologyCommandsToo() {
		try (TestRedisCluster cluster = TestRedisCluster.builder().masters(3).start()) {
			String[] command = ("ACL SETUSER delayqueue on >secret " + RULE + " " + CLUSTER_RULE).split(" ");
			cluster.nodeAddresses()
				.forEach((address) -> assertThat(cluster.call(Integer.parseInt(address.substring(address.indexOf(':') + 1)),
						command)).isEqualTo("OK"));
			RedisClusterConfiguration configuration = new RedisClusterConfiguration(cluster.nodeAddresses());
			configuration.setUsername("delayqueue");
			configuration.setPassword("secret");
			LettuceConnectionFactory clusterFactory = new LettuceConnectionFactory(configuration);
			clusterFactory.afterPropertiesSet();
			clusterFactory.start();
			try {
				RedisMessageStore store = new RedisMessageStore(clusterFactory, "dq", DeadLetterPolicy.DEFAULT);
				RedisDelayedQueue queue = new RedisDelayedQueue(store, PayloadConverter.json());
				RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, PayloadConverter.json());
				for (int i = 0; i < 30; i++) {
					queue.schedule("acl-" + i, "m", "x", Duration.ofMinutes(5));
				}
				assertThat(admin.stats("acl-7").waiting()).isEqualTo(1);
				assertThat(admin.knownTopics()).hasSize(30);
			}
			finally {
				clusterFactory.destroy();
			}
		}
	}

	@Test
	void theSecurityPageGivesThisRule() throws java.io.IOException {
		String page = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "reference", "security.md"))
			.replaceAll("\\s+", " ");
		assertThat(page).contains("ACL SETUSER delayqueue on >secret " + RULE).contains("add `" + CLUSTER_RULE + "`");
	}

	@Test
	void keysOutsideThePrefixAreRefused() {
		StringRedisTemplate template = new StringRedisTemplate(this.connectionFactory);
		// a command the rule allows, on a key it does not
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> template.opsForHash().put("other:key", "field", "x"))
			.havingRootCause()
			.withMessageContaining("NOPERM");
		RedisMessageStore elsewhere = new RedisMessageStore(this.connectionFactory, "other", DeadLetterPolicy.DEFAULT);
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> new RedisDelayedQueue(elsewhere, PayloadConverter.json()).schedule("acl", "x",
					Duration.ZERO))
			.havingRootCause()
			.withMessageContaining("NOPERM");
	}

}
