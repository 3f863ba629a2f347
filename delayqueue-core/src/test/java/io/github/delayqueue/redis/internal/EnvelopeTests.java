package io.github.delayqueue.redis.internal;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class EnvelopeTests {

	private static final HexFormat HEX = HexFormat.of();

	private static final Instant CREATED_AT = Instant.parse("2026-11-22T14:43:38.176Z");

	private static final byte[] PAYLOAD = "{\"orderId\":\"o-42\"}".getBytes(StandardCharsets.UTF_8);

	/*
	 * Format 1 fixtures: the bytes exactly as releases writing format 1 stored them, derived by hand from the
	 * format 1 layout (and checked against that release's encode()). Messages in Redis may be that old, so keep
	 * these fixtures forever, unchanged.
	 */

	/** Format 1 of CREATED_AT, headers {tenant=acme, traceparent=00-abc-01}, PAYLOAD. */
	private static final String FORMAT_1_WITH_HEADERS = "01" // version
			+ "000001a203b67240" // created at 1795358618176 ms, int64 big-endian
			+ "02" // 2 headers
			+ "06" + "74656e616e74" // "tenant"
			+ "04" + "61636d65" // "acme"
			+ "0b" + "7472616365706172656e74" // "traceparent"
			+ "09" + "30302d6162632d3031" // "00-abc-01"
			+ "7b226f726465724964223a226f2d3432227d"; // {"orderId":"o-42"}

	/** Format 1 of CREATED_AT, no headers, PAYLOAD. */
	private static final String FORMAT_1_WITHOUT_HEADERS = "01" // version
			+ "000001a203b67240" // created at 1795358618176 ms, int64 big-endian
			+ "00" // no headers
			+ "7b226f726465724964223a226f2d3432227d"; // {"orderId":"o-42"}

	/*
	 * Format 2 fixtures: what this release writes. Keep them forever too: once released, these bytes must
	 * always decode.
	 */

	/** Format 2 of CREATED_AT, headers {tenant=acme, traceparent=00-abc-01}, PAYLOAD. */
	private static final String FORMAT_2_WITH_HEADERS = "02" // version
			+ "c0e4d99da034" // created at 1795358618176 ms, varint
			+ "02" // 2 headers
			+ "06" + "74656e616e74" // "tenant"
			+ "04" + "61636d65" // "acme"
			+ "0b" + "7472616365706172656e74" // "traceparent"
			+ "09" + "30302d6162632d3031" // "00-abc-01"
			+ "7b226f726465724964223a226f2d3432227d"; // {"orderId":"o-42"}

	/** Format 2 of CREATED_AT, no headers, PAYLOAD. */
	private static final String FORMAT_2_WITHOUT_HEADERS = "02" // version
			+ "c0e4d99da034" // created at 1795358618176 ms, varint
			+ "00" // no headers
			+ "7b226f726465724964223a226f2d3432227d"; // {"orderId":"o-42"}

	/** The 6 bytes of CREATED_AT as a varint, to build corrupt format 2 envelopes. */
	private static final String CREATED_AT_VARINT = "c0e4d99da034";

	/** The 8 bytes of CREATED_AT as an int64, to build corrupt format 1 envelopes. */
	private static final String CREATED_AT_INT64 = "000001a203b67240";

	@Test
	void decodesFormat1WithHeaders() {
		Envelope envelope = Envelope.decode(HEX.parseHex(FORMAT_1_WITH_HEADERS));
		assertThat(envelope.createdAt()).isEqualTo(CREATED_AT);
		assertThat(envelope.headers()).containsExactly(Map.entry("tenant", "acme"),
				Map.entry("traceparent", "00-abc-01"));
		assertThat(envelope.payload()).isEqualTo(PAYLOAD);
	}

	@Test
	void decodesFormat1WithoutHeaders() {
		Envelope envelope = Envelope.decode(HEX.parseHex(FORMAT_1_WITHOUT_HEADERS));
		assertThat(envelope.createdAt()).isEqualTo(CREATED_AT);
		assertThat(envelope.headers()).isEmpty();
		assertThat(envelope.payload()).isEqualTo(PAYLOAD);
	}

	@Test
	void encodesFormat2WithHeaders() {
		Envelope envelope = new Envelope(CREATED_AT, fixtureHeaders(), PAYLOAD);
		assertThat(HEX.formatHex(envelope.encode())).isEqualTo(FORMAT_2_WITH_HEADERS);
	}

	@Test
	void encodesFormat2WithoutHeaders() {
		Envelope envelope = new Envelope(CREATED_AT, Map.of(), PAYLOAD);
		assertThat(HEX.formatHex(envelope.encode())).isEqualTo(FORMAT_2_WITHOUT_HEADERS);
	}

	@Test
	void encodesAGroupedMessageInFormat3AsFormat2AfterTheGroup() {
		Envelope envelope = new Envelope(CREATED_AT, Map.of(), PAYLOAD, "tenant-42");
		// version 3, the group's length and bytes, then format 2's fields after its version byte
		assertThat(HEX.formatHex(envelope.encode()))
			.isEqualTo("03" + "09" + HEX.formatHex("tenant-42".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
					+ FORMAT_2_WITHOUT_HEADERS.substring(2));
		assertThat(Envelope.decode(envelope.encode())).isEqualTo(envelope);
		assertThat(Envelope.decode(envelope.encode()).group()).isEqualTo("tenant-42");
	}

	@Test
	void encodesAMessageOfAnotherPriorityInFormat4AsFormat2AfterThePriorityAndTheGroup() {
		Envelope plain = new Envelope(CREATED_AT, Map.of(), PAYLOAD, null, 9);
		Envelope grouped = new Envelope(CREATED_AT, Map.of(), PAYLOAD, "tenant-42", 0);
		// version 4, the priority, the group's length (0: none) and bytes, then format 2's fields after its version byte
		assertThat(HEX.formatHex(plain.encode())).isEqualTo("04" + "09" + "00" + FORMAT_2_WITHOUT_HEADERS.substring(2));
		assertThat(HEX.formatHex(grouped.encode()))
			.isEqualTo("04" + "00" + "09" + HEX.formatHex("tenant-42".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
					+ FORMAT_2_WITHOUT_HEADERS.substring(2));
		assertThat(Envelope.decode(plain.encode())).isEqualTo(plain);
		assertThat(Envelope.decode(grouped.encode())).isEqualTo(grouped);
		assertThat(Envelope.decode(grouped.encode()).priority()).isZero();
	}

	@Test
	void theDefaultPriorityIsWrittenAsBeforeAndEveryOlderFormatReadsAsTheDefault() {
		assertThat(HEX.formatHex(new Envelope(CREATED_AT, Map.of(), PAYLOAD, null, 4).encode()))
			.isEqualTo(FORMAT_2_WITHOUT_HEADERS);
		assertThat(new Envelope(CREATED_AT, Map.of(), PAYLOAD, "g", 4).encode()[0]).isEqualTo((byte) 3);
		assertThat(Envelope.decode(HEX.parseHex(FORMAT_2_WITHOUT_HEADERS)).priority()).isEqualTo(4);
		assertThat(Envelope.decode(new Envelope(CREATED_AT, Map.of(), PAYLOAD, "g").encode()).priority()).isEqualTo(4);
	}

	@Test
	void aFormat4EnvelopeWithACorruptPriorityIsMalformed() {
		assertThatExceptionOfType(MalformedEnvelopeException.class)
			.isThrownBy(() -> Envelope.decode(HEX.parseHex("040a00" + FORMAT_2_WITHOUT_HEADERS.substring(2))))
			.withMessageContaining("priority 10 is not 0 to 9");
		assertThatExceptionOfType(MalformedEnvelopeException.class)
			.isThrownBy(() -> Envelope.decode(HEX.parseHex("0409")))
			.withMessageContaining("too short");
	}

	@Test
	void aFormat3EnvelopeWithACorruptGroupIsMalformed() {
		assertThatExceptionOfType(MalformedEnvelopeException.class)
			.isThrownBy(() -> Envelope.decode(HEX.parseHex("0300" + FORMAT_2_WITHOUT_HEADERS.substring(2))))
			.withMessageContaining("group key length 0");
		assertThatExceptionOfType(MalformedEnvelopeException.class)
			.isThrownBy(() -> Envelope.decode(HEX.parseHex("030220ff" + FORMAT_2_WITHOUT_HEADERS.substring(2))))
			.withMessageContaining("not printable ASCII");
	}

	@Test
	void decodesFormat5AsFormat2AfterTheDueTimeInFront() {
		// version 5, the due time (a big-endian double: 1764672000123.456 ms), then format 2's fields after its version
		String due = HEX.formatHex(java.nio.ByteBuffer.allocate(8).putDouble(1764672000123.456).array());
		assertThat(Envelope.decode(HEX.parseHex("05" + due + FORMAT_2_WITH_HEADERS.substring(2))))
			.isEqualTo(new Envelope(CREATED_AT, fixtureHeaders(), PAYLOAD));
		assertThat(Envelope.decode(HEX.parseHex("05" + due + FORMAT_2_WITHOUT_HEADERS.substring(2))).priority())
			.isEqualTo(4);
		assertThatExceptionOfType(MalformedEnvelopeException.class)
			.isThrownBy(() -> Envelope.decode(HEX.parseHex("05" + due.substring(0, 8))))
			.withMessageContaining("too short for format 5");
	}

	@Test
	void decodesFormat2WithHeaders() {
		Envelope envelope = Envelope.decode(HEX.parseHex(FORMAT_2_WITH_HEADERS));
		assertThat(envelope.createdAt()).isEqualTo(CREATED_AT);
		assertThat(envelope.headers()).containsExactly(Map.entry("tenant", "acme"),
				Map.entry("traceparent", "00-abc-01"));
		assertThat(envelope.payload()).isEqualTo(PAYLOAD);
		assertThat(envelope).isEqualTo(new Envelope(CREATED_AT, fixtureHeaders(), PAYLOAD));
	}

	@Test
	void decodesFormat2WithoutHeaders() {
		assertThat(Envelope.decode(HEX.parseHex(FORMAT_2_WITHOUT_HEADERS)))
			.isEqualTo(new Envelope(CREATED_AT, Map.of(), PAYLOAD));
	}

	@Test
	void writesVersion2() {
		assertThat(Envelope.VERSION).isEqualTo((byte) 2);
		assertThat(new Envelope(CREATED_AT, Map.of(), PAYLOAD).encode()[0]).isEqualTo((byte) 2);
	}

	@Test
	void formatsAgreeApartFromTheirLayout() {
		assertThat(Envelope.decode(HEX.parseHex(FORMAT_1_WITH_HEADERS)))
			.isEqualTo(Envelope.decode(HEX.parseHex(FORMAT_2_WITH_HEADERS)));
		assertThat(Envelope.decode(HEX.parseHex(FORMAT_1_WITHOUT_HEADERS)))
			.isEqualTo(Envelope.decode(HEX.parseHex(FORMAT_2_WITHOUT_HEADERS)));
	}

	@Test
	void format2OfASmallPayloadWithoutHeadersTakes8BytesMore() {
		byte[] payload = new byte[28];
		Instant createdAt = Instant.parse("2026-03-01T09:30:00.123Z");
		assertThat(new Envelope(createdAt, Map.of(), payload).encode()).hasSize(8 + 28);
		assertThat(new Envelope(Instant.parse("2026-01-01T00:00:00Z"), Map.of(), payload).encode())
			.hasSize(8 + 28);
		assertThat(new Envelope(Instant.parse("2026-12-31T23:59:59.999Z"), Map.of(), payload).encode())
			.hasSize(8 + 28);
	}

	@Test
	void format2IsSmallerThanFormat1() {
		assertThat(HEX.parseHex(FORMAT_2_WITH_HEADERS)).hasSize(HEX.parseHex(FORMAT_1_WITH_HEADERS).length - 2);
	}

	@Test
	void roundTripsAnEmptyPayload() {
		assertRoundTrip(new Envelope(CREATED_AT, fixtureHeaders(), new byte[0]));
		assertRoundTrip(new Envelope(CREATED_AT, Map.of(), new byte[0]));
		assertThat(new Envelope(CREATED_AT, Map.of(), new byte[0]).encode()).hasSize(8);
	}

	@Test
	void roundTripsEmptyHeaderNamesAndValues() {
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("", "");
		headers.put("empty", "");
		assertRoundTrip(new Envelope(CREATED_AT, headers, PAYLOAD));
	}

	@Test
	void roundTripsUnicodeHeaders() {
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("café", "naïve – “quoted”");
		headers.put("名前", "値 \uD83D\uDE80 rocket");
		headers.put("nul", "a\u0000b");
		headers.put("edges", "\u007F\u0080\u07FF\u0800\uFFFF\uD800\uDC00\uDBFF\uDFFF");
		Envelope envelope = new Envelope(CREATED_AT, headers, PAYLOAD);
		assertRoundTrip(envelope);
		assertThat(envelope.encode()).hasSize(1 + 6 + 1 + utf8Size(headers) + PAYLOAD.length);
	}

	@Test
	void writesAnUnpairedSurrogateAsAQuestionMarkLikeGetBytes() {
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("high", "a\uD800b");
		headers.put("low", "\uDC00");
		headers.put("reversed", "\uDC00\uD800");
		headers.put("trailing", "x\uDBFF");
		Envelope decoded = Envelope.decode(new Envelope(CREATED_AT, headers, PAYLOAD).encode());
		headers.forEach((name, value) -> assertThat(decoded.headers().get(name))
			.isEqualTo(new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)));
		assertThat(decoded.headers()).containsEntry("high", "a?b").containsEntry("reversed", "??");
	}

	@Test
	void encodesStringsAsGetBytesDoes() {
		Random random = new Random(42);
		for (int i = 0; i < 2000; i++) {
			String name = randomString(random);
			String value = randomString(random);
			byte[] encoded = new Envelope(CREATED_AT, Map.of(name, value), PAYLOAD).encode();
			byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
			byte[] valueBytes = value.getBytes(StandardCharsets.UTF_8);
			byte[] expected = concat(HEX.parseHex("02" + CREATED_AT_VARINT + "01"), varint(nameBytes.length),
					nameBytes, varint(valueBytes.length), valueBytes, PAYLOAD);
			assertThat(encoded).as("name %s value %s", name, value).isEqualTo(expected);
		}
	}

	@Test
	void roundTripsAMegabytePayload() {
		byte[] payload = new byte[1024 * 1024];
		new Random(7).nextBytes(payload);
		Envelope envelope = new Envelope(CREATED_AT, fixtureHeaders(), payload);
		byte[] encoded = envelope.encode();
		assertThat(encoded).hasSize(HEX.parseHex(FORMAT_2_WITH_HEADERS).length - PAYLOAD.length + payload.length);
		assertRoundTrip(envelope);
	}

	@Test
	void roundTripsManyHeadersInOrder() {
		Map<String, String> headers = new LinkedHashMap<>();
		for (int i = 200; i > 0; i--) {
			headers.put("h" + i, "v".repeat(i));
		}
		Envelope decoded = Envelope.decode(new Envelope(CREATED_AT, headers, PAYLOAD).encode());
		assertThat(decoded.headers()).containsExactlyEntriesOf(headers);
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, 1, 127, 128, 16383, 16384, 1795358618176L, (1L << 42) - 1, 1L << 42,
			Long.MAX_VALUE, -1, -1795358618176L, Long.MIN_VALUE })
	void roundTripsCreationTimes(long epochMillis) {
		Envelope envelope = new Envelope(Instant.ofEpochMilli(epochMillis), Map.of(), PAYLOAD);
		assertRoundTrip(envelope);
		int significantBits = 64 - Long.numberOfLeadingZeros(epochMillis);
		int expectedVarintSize = Math.max(1, (significantBits + 6) / 7);
		assertThat(envelope.encode()).hasSize(1 + expectedVarintSize + 1 + PAYLOAD.length);
	}

	@Test
	void truncatesTheCreationTimeToTheMillisecond() {
		Instant created = Instant.parse("2026-11-22T14:43:38.176999999Z");
		assertThat(Envelope.decode(new Envelope(created, Map.of(), PAYLOAD).encode()).createdAt())
			.isEqualTo(CREATED_AT);
	}

	@Test
	void creationTimeBeyondEpochMillisecondsCannotBeEncoded() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> new Envelope(Instant.MAX, Map.of(), PAYLOAD).encode())
			.withMessageContaining("out of range");
	}

	@Test
	void decodedHeadersAreUnmodifiable() {
		for (String hex : new String[] { FORMAT_1_WITH_HEADERS, FORMAT_2_WITH_HEADERS, FORMAT_2_WITHOUT_HEADERS }) {
			Map<String, String> headers = Envelope.decode(HEX.parseHex(hex)).headers();
			assertThat(catchThrowable(() -> headers.put("x", "y")))
				.isInstanceOf(UnsupportedOperationException.class);
		}
	}

	@Test
	void lastOfDuplicateHeadersWins() {
		byte[] bytes = HEX.parseHex("02" + CREATED_AT_VARINT + "03" + "0161" + "0131" + "0162" + "0132" + "0161"
				+ "0133" + "ff");
		Envelope envelope = Envelope.decode(bytes);
		assertThat(envelope.headers()).containsExactly(Map.entry("a", "3"), Map.entry("b", "2"));
		assertThat(envelope.payload()).containsExactly(0xff);
	}

	@Test
	void decodesTheSmallestEnvelopes() {
		assertThat(Envelope.decode(HEX.parseHex("020000")))
			.isEqualTo(new Envelope(Instant.EPOCH, Map.of(), new byte[0]));
		assertThat(Envelope.decode(HEX.parseHex("01000000000000000000")))
			.isEqualTo(new Envelope(Instant.EPOCH, Map.of(), new byte[0]));
	}

	@Test
	void acceptsANonMinimalVarint() {
		assertThat(Envelope.decode(HEX.parseHex("02" + CREATED_AT_VARINT + "8000")).headers()).isEmpty();
	}

	static Stream<Arguments> corruptEnvelopes() {
		String v2 = "02" + CREATED_AT_VARINT;
		String v1 = "01" + CREATED_AT_INT64;
		return Stream.of(
				malformed("empty", "", "Stored message is too short (0 bytes)"),
				malformed("unknown version", "07" + CREATED_AT_VARINT + "00",
						"Stored message has unknown format version 7"),
				malformed("version 0", "00" + CREATED_AT_INT64 + "00", "Stored message has unknown format version 0"),
				malformed("version 255", "ff" + CREATED_AT_INT64 + "00",
						"Stored message has unknown format version 255"),
				malformed("format 1 too short", "01" + "0000000000000000",
						"Stored message is too short for format 1 (9 bytes, at least 10)"),
				malformed("format 2 too short", "0201",
						"Stored message is too short for format 2 (2 bytes, at least 3)"),
				malformed("format 2 version only", "02",
						"Stored message is too short for format 2 (1 byte, at least 3)"),
				corrupt("truncated created at", "028080",
						"created at (a varint at byte 1) is truncated by the end of the message"),
				corrupt("created at overflows", "02" + "ffffffffffffffffff" + "02" + "00",
						"created at (a varint at byte 1) overflows 64 bits"),
				corrupt("created at longer than 10 bytes", "02" + "80808080808080808080" + "00" + "00",
						"created at (a varint at byte 1) overflows 64 bits"),
				corrupt("truncated header count", v2 + "80",
						"header count (a varint at byte 7) is truncated by the end of the message"),
				corrupt("header count longer than 5 bytes", v2 + "808080808000",
						"header count (a varint at byte 7) is longer than 5 bytes"),
				corrupt("header count out of int range", v2 + "ffffffff0f" + "0000",
						"header count 4294967295 is negative or too large (at most 2147483647)"),
				corrupt("header count beyond the bytes", v2 + "03" + "0000" + "0000" + "00",
						"header count 3 exceeds the 5 bytes left (each header takes at least 2)"),
				corrupt("format 1 header count beyond the bytes", v1 + "01" + "00",
						"header count 1 exceeds the 1 byte left (each header takes at least 2)"),
				corrupt("name length beyond the bytes", v2 + "01" + "0561",
						"header 1 name length 5 exceeds the 1 byte left"),
				corrupt("value length beyond the bytes", v2 + "02" + "0161" + "0162" + "0163" + "09" + "6364",
						"header 2 value length 9 exceeds the 2 bytes left"),
				corrupt("truncated name length", v2 + "01" + "8080",
						"header 1 name length (a varint at byte 8) is truncated by the end of the message"),
				corrupt("value length longer than 5 bytes", v2 + "01" + "00" + "ffffffffff7f",
						"header 1 value length (a varint at byte 9) is longer than 5 bytes"),
				corrupt("negative name length (format 1)", v1 + "01" + "ffffffff0f" + "0000",
						"header 1 name length 4294967295 is negative or too large (at most 2147483647)"),
				corrupt("name not UTF-8", v2 + "01" + "02c328" + "00", "header 1 name is not valid UTF-8"),
				corrupt("value an overlong UTF-8 form", v2 + "01" + "0161" + "02c0af",
						"header 1 value is not valid UTF-8"),
				corrupt("value an encoded surrogate", v1 + "01" + "0161" + "03eda080",
						"header 1 value is not valid UTF-8"),
				corrupt("value truncated UTF-8", v2 + "01" + "0161" + "02e282", "header 1 value is not valid UTF-8"));
	}

	private static Arguments malformed(String description, String hex, String message) {
		return Arguments.of(description, hex, message);
	}

	private static Arguments corrupt(String description, String hex, String problem) {
		return Arguments.of(description, hex, "Stored message is corrupt: " + problem);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("corruptEnvelopes")
	void corruptEnvelopeIsMalformed(String description, String hex, String message) {
		byte[] bytes = HEX.parseHex(hex);
		assertThatExceptionOfType(MalformedEnvelopeException.class).isThrownBy(() -> Envelope.decode(bytes))
			.withMessage(message);
	}

	/**
	 * Regression: a version 1 decoder allocated a map for the claimed header count before reading a header, so a
	 * few bytes could make it allocate gigabytes.
	 */
	@Test
	void hugeHeaderCountFailsFastWithoutAllocating() {
		// 15 bytes claiming 100,000,000 (varint 80c2d72f) headers, the first of them an empty name and value
		// (the version 1 decoder allocated its 2^28-entry table when it put that first header)
		byte[] format2 = HEX.parseHex("02" + CREATED_AT_VARINT + "80c2d72f" + "0000" + "0000");
		byte[] format1 = HEX.parseHex("01" + CREATED_AT_INT64 + "80c2d72f" + "0000");
		byte[] maxInt = HEX.parseHex("02" + CREATED_AT_VARINT + "ffffffff07" + "616263");
		assertThat(format2).hasSize(15);
		assertThat(format1).hasSize(15);
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
			for (int i = 0; i < 10_000; i++) {
				assertThatExceptionOfType(MalformedEnvelopeException.class).isThrownBy(() -> Envelope.decode(format2))
					.withMessage("Stored message is corrupt: header count 100000000 exceeds the 4 bytes left"
							+ " (each header takes at least 2)");
				assertThatExceptionOfType(MalformedEnvelopeException.class).isThrownBy(() -> Envelope.decode(format1))
					.withMessage("Stored message is corrupt: header count 100000000 exceeds the 2 bytes left"
							+ " (each header takes at least 2)");
				assertThatExceptionOfType(MalformedEnvelopeException.class).isThrownBy(() -> Envelope.decode(maxInt))
					.withMessageContaining("header count 2147483647 exceeds the 3 bytes left");
			}
		});
	}

	@Test
	void everyTruncationDecodesOrIsMalformed() {
		for (String hex : new String[] { FORMAT_1_WITH_HEADERS, FORMAT_2_WITH_HEADERS }) {
			byte[] bytes = HEX.parseHex(hex);
			for (int length = 0; length < bytes.length; length++) {
				assertDecodesOrIsMalformed(Arrays.copyOf(bytes, length));
			}
		}
	}

	@Test
	void randomAndMutatedBytesDecodeOrAreMalformed() {
		Random random = new Random(20261122);
		byte[][] seeds = { HEX.parseHex(FORMAT_1_WITH_HEADERS), HEX.parseHex(FORMAT_2_WITH_HEADERS),
				HEX.parseHex(FORMAT_2_WITHOUT_HEADERS) };
		for (int i = 0; i < 100_000; i++) {
			byte[] bytes;
			if (i % 2 == 0) {
				bytes = new byte[random.nextInt(40)];
				random.nextBytes(bytes);
				if (bytes.length > 0) {
					bytes[0] = (byte) (1 + random.nextInt(2));
				}
			}
			else {
				bytes = seeds[random.nextInt(seeds.length)].clone();
				for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
					bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
				}
			}
			assertDecodesOrIsMalformed(bytes);
		}
	}

	@Test
	void equalityComparesPayloadBytes() {
		Envelope envelope = new Envelope(CREATED_AT, fixtureHeaders(), PAYLOAD);
		Envelope same = new Envelope(CREATED_AT, fixtureHeaders(), PAYLOAD.clone());
		assertThat(envelope).isEqualTo(same).hasSameHashCodeAs(same);
		assertThat(envelope).isNotEqualTo(new Envelope(CREATED_AT, fixtureHeaders(), new byte[] { 1 }));
		assertThat(envelope).hasToString("Envelope[createdAt=2026-11-22T14:43:38.176Z, "
				+ "headers={tenant=acme, traceparent=00-abc-01}, payload=18 bytes]");
	}

	private static void assertDecodesOrIsMalformed(byte[] bytes) {
		try {
			Envelope.decode(bytes);
		}
		catch (MalformedEnvelopeException ex) {
			// Explicit checks, not a wrapped RuntimeException: only a UTF-8 failure has a cause
			Throwable cause = ex.getCause();
			if (!ex.getMessage().startsWith("Stored message ")
					|| (cause != null && !(cause instanceof CharacterCodingException))) {
				throw new AssertionError("Unexpected failure for " + HEX.formatHex(bytes), ex);
			}
		}
		catch (RuntimeException | Error ex) {
			throw new AssertionError("Unexpected failure for " + HEX.formatHex(bytes), ex);
		}
	}

	private static void assertRoundTrip(Envelope envelope) {
		Envelope decoded = Envelope.decode(envelope.encode());
		assertThat(decoded).isEqualTo(envelope);
		assertThat(decoded.headers()).containsExactlyEntriesOf(envelope.headers());
	}

	private static Map<String, String> fixtureHeaders() {
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put("traceparent", "00-abc-01");
		return headers;
	}

	private static int utf8Size(Map<String, String> headers) {
		int size = 0;
		for (Map.Entry<String, String> header : headers.entrySet()) {
			for (String part : new String[] { header.getKey(), header.getValue() }) {
				int length = part.getBytes(StandardCharsets.UTF_8).length;
				size += varint(length).length + length;
			}
		}
		return size;
	}

	private static String randomString(Random random) {
		int length = random.nextInt(12);
		StringBuilder builder = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			switch (random.nextInt(5)) {
				case 0 -> builder.append((char) random.nextInt(0x80));
				case 1 -> builder.append((char) (0x80 + random.nextInt(0x780)));
				case 2 -> builder.append((char) (0x800 + random.nextInt(0xF800)));
				case 3 -> builder.appendCodePoint(0x10000 + random.nextInt(0x100000));
				default -> builder.append((char) (0xD800 + random.nextInt(0x800)));
			}
		}
		return builder.toString();
	}

	private static byte[] varint(int value) {
		byte[] out = new byte[5];
		int length = 0;
		int v = value;
		while ((v & ~0x7F) != 0) {
			out[length++] = (byte) ((v & 0x7F) | 0x80);
			v >>>= 7;
		}
		out[length++] = (byte) v;
		return Arrays.copyOf(out, length);
	}

	private static byte[] concat(byte[]... parts) {
		int length = 0;
		for (byte[] part : parts) {
			length += part.length;
		}
		byte[] out = new byte[length];
		int position = 0;
		for (byte[] part : parts) {
			System.arraycopy(part, 0, out, position, part.length);
			position += part.length;
		}
		return out;
	}

}
