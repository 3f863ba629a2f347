package io.github.delayqueue.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of calls on grouped messages with priorities (schedule, claim with short and long leases, ack,
 * retry, release, bury, cancel, replace, replay, reschedule, pause and resume of a group, either priority mode): after
 * each call every stored message waits in exactly one set, every non-empty level set of a group is listed in the
 * group's levels, and every group with messages waiting is in turn or held, so none is lost or stranded.
 */
class GroupPriorityInvariantTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "gfuzz";

	// every envelope in exactly one of the sets; every non-empty group set listed in its group's levels and its group
	// in turn or held; every page listed, not empty, at most 96, its messages within its fences (the first page
	// without one), a listpack, its count in pcount, in the count, and each with its due time in front of its envelope
	private static final String CHECK = """
			local base = ARGV[1]
			local sets = {}
			local bad = {}
			local function less(a, b)
			  for i = 1, math.min(#a, #b) do
			    local x, y = string.byte(a, i), string.byte(b, i)
			    if x ~= y then return x < y end
			  end
			  return #a < #b
			end
			local members = redis.call('ZRANGE', base .. 'pages', 0, -1)
			local listed, inPages = {}, 0
			for i, m in ipairs(members) do
			  local n = string.match(m, '%z(%d+)$')
			  local key = base .. 'p:' .. n
			  listed[key] = true
			  sets[#sets + 1] = key
			  local fence = string.sub(m, 1, #m - #n - 1)
			  local after = members[i + 1] and string.sub(members[i + 1], 1, #members[i + 1] - #string.match(members[i + 1], '%z(%d+)$') - 1)
			  if i == 1 and fence ~= '' then bad[#bad + 1] = 'first page ' .. n .. ' has a fence' end
			  local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
			  if #entries == 0 or #entries > 192 then bad[#bad + 1] = 'page ' .. n .. ' holds ' .. #entries / 2 end
			  if redis.call('OBJECT', 'ENCODING', key) ~= 'listpack' then bad[#bad + 1] = 'page ' .. n .. ' not a listpack' end
			  local counted = redis.call('HGET', base .. 'pcount', n)
			  if tonumber(counted) ~= #entries / 2 then bad[#bad + 1] = 'page ' .. n .. ' holds ' .. #entries / 2 .. ', pcount says ' .. tostring(counted) end
			  inPages = inPages + #entries / 2
			  for j = 1, #entries, 2 do
			    local order = struct.pack('>d', tonumber(entries[j + 1])) .. entries[j]
			    if (i > 1 and less(order, fence)) or (after and not less(order, after)) then
			      bad[#bad + 1] = entries[j] .. ' outside page ' .. n
			    end
			  end
			end
			for _, k in ipairs(redis.call('KEYS', base .. 'p:*')) do
			  if not listed[k] then bad[#bad + 1] = 'page ' .. k .. ' not listed' end
			end
			for _, n in ipairs(redis.call('HKEYS', base .. 'pcount')) do
			  if not listed[base .. 'p:' .. n] then bad[#bad + 1] = 'pcount has page ' .. n .. ', not listed' end
			end
			if inPages ~= (tonumber(redis.call('HGET', base .. 'meta', 'paged')) or 0) then
			  bad[#bad + 1] = 'pages hold ' .. inPages .. ', meta counts ' .. tostring(redis.call('HGET', base .. 'meta', 'paged'))
			end
			for _, k in ipairs(redis.call('KEYS', base .. 'g*')) do
			  local rest = string.sub(k, #base + 1)
			  if string.match(rest, '^g%d?:') then sets[#sets + 1] = k end
			end
			sets[#sets + 1] = base .. 'pending'
			for d = 0, 9 do sets[#sets + 1] = base .. 'p' .. d end
			sets[#sets + 1] = base .. 'leased'
			sets[#sets + 1] = base .. 'buried'
			-- each set read once: id -> the number of sets holding it, and its due time in a page
			local held, inPage = {}, {}
			for _, s in ipairs(sets) do
			  if redis.call('TYPE', s).ok == 'zset' then
			    local entries = redis.call('ZRANGE', s, 0, -1, 'WITHSCORES')
			    local page = string.find(s, '}:p:', 1, true)
			    for j = 1, #entries, 2 do
			      held[entries[j]] = (held[entries[j]] or 0) + 1
			      if page then inPage[entries[j]] = tonumber(entries[j + 1]) end
			    end
			  end
			end
			for _, b in ipairs(redis.call('KEYS', base .. 'body:*')) do
			  local all = redis.call('HGETALL', b)
			  for j = 1, #all, 2 do
			    local id, e = all[j], all[j + 1]
			    local n = held[id] or 0
			    if n ~= 1 then bad[#bad + 1] = id .. ' in ' .. n .. ' sets' end
			    if inPage[id] and (string.byte(e, 1) ~= 5 or struct.unpack('>d', e, 2) ~= inPage[id]) then
			      bad[#bad + 1] = id .. ' in a page without its due time in front'
			    end
			  end
			end
			for _, k in ipairs(sets) do
			  local rest = string.sub(k, #base + 1)
			  local d, group = string.match(rest, '^g(%d?):(.*)$')
			  if group and redis.call('ZCARD', k) > 0 then
			    if d ~= '' and not string.find(redis.call('HGET', base .. 'gcontrol', 'l:' .. group) or '', d, 1, true) then
			      bad[#bad + 1] = 'level ' .. d .. ' of ' .. group .. ' not listed'
			    end
			    if not redis.call('ZSCORE', base .. 'groups', group) and redis.call('SISMEMBER', base .. 'gheld', group) == 0 then
			      bad[#bad + 1] = 'group ' .. group .. ' neither in turn nor held'
			    end
			  end
			end
			local control = redis.call('HGETALL', base .. 'gcontrol')
			for i = 1, #control, 2 do
			  if string.sub(control[i], 1, 2) == 'd:' and not (tonumber(control[i + 1]) and tonumber(control[i + 1]) > 0) then
			    bad[#bad + 1] = 'debt ' .. control[i] .. ' = ' .. control[i + 1]
			  end
			end
			return table.concat(bad, '; ')
			""";

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8 })
	void everyMessageStaysInExactlyOneSet(long seed) throws Exception {
		Random random = new Random(seed);
		String[] groups = { "a", "b", "c", null };
		int[] levels = { 4, 9, 2, 7 };
		List<Lease> held = new ArrayList<>();
		List<String> ids = new ArrayList<>();
		List<String> log = new ArrayList<>();
		if (random.nextBoolean()) {
			redis.store().controls().priorityMode(TOPIC, true);
		}
		long start = System.currentTimeMillis();
		for (int step = 0; step < 400; step++) {
			int op = random.nextInt(16);
			String g = groups[random.nextInt(groups.length)];
			int level = levels[random.nextInt(levels.length)];
			String what;
			switch (op) {
				case 0 -> {
					// a batch of plain messages, many due at one instant: a page may take more than fit in a listpack
					int size = random.nextInt(8) == 0 ? 130 + random.nextInt(100) : random.nextInt(20) + 1;
					long delayMicros = random.nextBoolean() ? 0 : random.nextInt(3000);
					List<NewMessage> batch = new ArrayList<>();
					boolean inOrder = random.nextBoolean();
					boolean atInstants = random.nextBoolean();
					for (int i = 0; i < size; i++) {
						String id = "b" + step + "-" + (inOrder ? String.format("%03d", i) : random.nextInt(1000));
						ids.add(id);
						// (due at one of three instants half the time, shared with other batches: ties with pages' fences)
						DueTime due = atInstants ? DueTime.at(start + random.nextInt(3))
								: DueTime.in(random.nextInt(3) == 0 ? random.nextInt(3000) : delayMicros);
						batch.add(message(id, Envelope.DEFAULT_PRIORITY, null, due));
					}
					redis.store().messages().schedule(TOPIC, batch);
					what = "schedule a batch of " + size + (inOrder ? " in order" : "")
							+ (atInstants ? " at three instants" : " +" + delayMicros + "us");
				}
				case 1, 2 -> {
					String id = "m" + step;
					ids.add(id);
					long delayMicros = random.nextBoolean() ? 0 : random.nextInt(3000);
					redis.store().messages().schedule(TOPIC, List.of(message(id, level, g, DueTime.in(delayMicros))));
					what = "schedule " + id + " " + g + " " + level + " +" + delayMicros + "us";
				}
				case 3, 4 -> {
					long lease = random.nextInt(4) == 0 ? 1 : 60_000;
					Claim claim = redis.store().leases().claim(TOPIC, random.nextInt(4) == 0 ? random.nextInt(20) + 1
							: random.nextInt(5) + 1, lease, 3);
					claim.messages().forEach((m) -> held.add(m.lease()));
					what = "claim lease " + lease + " -> " + claim.messages().stream().map(ClaimedMessage::id).toList();
				}
				case 5 -> {
					Lease l = take(held, random);
					what = "ack " + (l == null ? null : l.id()) + " " + (l == null ? 0 : redis.store().leases().ack(TOPIC, List.of(l)));
				}
				case 6 -> {
					Lease l = take(held, random);
					what = "retry " + (l == null ? null : l.id()) + " "
							+ (l != null && redis.store().leases().retry(TOPIC, l, random.nextInt(3), "x", random.nextInt(3) == 0));
				}
				case 7 -> {
					Lease l = take(held, random);
					what = "release " + (l == null ? null : l.id()) + " " + (l == null ? 0 : redis.store().leases().release(TOPIC, List.of(l)));
				}
				case 8 -> {
					Lease l = take(held, random);
					what = "bury " + (l == null ? null : l.id()) + " " + (l != null && redis.store().leases().bury(TOPIC, l, "x"));
				}
				case 9 -> {
					String id = ids.isEmpty() ? "none" : ids.get(random.nextInt(ids.size()));
					what = "cancel " + id + " " + redis.store().messages().cancel(TOPIC, id);
				}
				case 10 -> {
					String id = ids.isEmpty() ? "none" : ids.get(random.nextInt(ids.size()));
					what = "replace " + id + " " + g + " " + level + " "
							+ redis.store().messages().replace(TOPIC, message(id, level, g, DueTime.in(0)));
				}
				case 11 -> {
					String id = ids.isEmpty() ? "none" : ids.get(random.nextInt(ids.size()));
					what = "replay " + id + " " + redis.store().deadLetters().replay(TOPIC, id);
				}
				case 12 -> {
					String group = groups[random.nextInt(3)];
					if (random.nextBoolean()) {
						redis.store().controls().pauseGroup(TOPIC, group);
						what = "pause " + group;
					}
					else {
						redis.store().controls().resumeGroup(TOPIC, group);
						what = "resume " + group;
					}
				}
				case 13 -> {
					String group = groups[random.nextInt(3)];
					Integer weight = random.nextInt(3) == 0 ? null : random.nextInt(4) + 1;
					redis.store().controls().weighGroup(TOPIC, group, weight);
					what = "weigh " + group + " " + weight;
				}
				case 14 -> {
					String group = groups[random.nextInt(3)];
					Long cap = random.nextInt(3) == 0 ? null : (long) (random.nextInt(3) + 1);
					redis.store().controls().capGroup(TOPIC, group, cap);
					what = "cap " + group + " " + cap;
				}
				default -> {
					String id = ids.isEmpty() ? "none" : ids.get(random.nextInt(ids.size()));
					what = "reschedule " + id + " " + redis.store().messages().reschedule(TOPIC, id, DueTime.in(random.nextInt(2000)));
				}
			}
			log.add(what);
			String bad = redis.get().call("EVAL", CHECK, "0", RedisFixture.PREFIX + ":{" + TOPIC + "}:");
			assertThat(bad).as(() -> String.join("\n", log)).isNullOrEmpty();
		}
	}

	private static Lease take(List<Lease> held, Random random) {
		return held.isEmpty() ? null : held.remove(random.nextInt(held.size()));
	}

}
