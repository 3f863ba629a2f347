/*
 * The delayqueue dashboard's script: polls the dashboard's JSON API and draws what it answers. Plain browser
 * JavaScript, no build step. Text from the server is only ever set as text (never parsed as HTML).
 */
(function () {
  'use strict';

  var root = document.getElementById('dashboard');
  if (!root) {
    return;
  }
  var api = root.dataset.api;
  var refreshMs = Math.max(500, Number(root.dataset.refreshMs) || 5000);
  var writable = root.dataset.writable === 'true';
  var csrfHeader = root.dataset.csrfHeader;
  var csrfToken = root.dataset.csrfToken;
  var PAGE = 20;
  // a timeline is counted exactly, a ZCOUNT per bar and partition: drawn on selection, then at most every 10 s
  var TIMELINE_EVERY_MS = Math.max(refreshMs, 10000);

  var state = {
    topic: null,
    overview: null,
    waitingCursors: [null],
    deadOffset: 0,
    timelineAt: 0
  };

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) {
        return;
      }
      if (name === 'text') {
        node.textContent = String(value);
      }
      else if (name === 'className') {
        node.className = value;
      }
      else if (name === 'onclick') {
        node.addEventListener('click', value);
      }
      else {
        node.setAttribute(name, value === true ? '' : String(value));
      }
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
      }
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
    return node;
  }

  // ---- talking to the API ------------------------------------------------------------------------------------

  function problemOf(response) {
    return response.text().then(function (body) {
      var detail = body;
      try {
        var json = JSON.parse(body);
        detail = json.detail || json.title || body;
      }
      catch (ignored) {
        // not JSON: the text is the detail
      }
      var error = new Error(response.status + ': ' + (detail || response.statusText));
      error.status = response.status;
      return Promise.reject(error);
    });
  }

  function getJson(path) {
    return fetch(api + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) {
        if (response.status === 404) {
          return null;
        }
        return response.ok ? response.json() : problemOf(response);
      });
  }

  function send(method, path, body) {
    var headers = { Accept: 'application/json' };
    if (csrfHeader && csrfToken) {
      headers[csrfHeader] = csrfToken;
    }
    var init = { method: method, headers: headers, credentials: 'same-origin' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(api + path, init).then(function (response) {
      return response.ok ? response.json() : problemOf(response);
    });
  }

  function topicPath(topic) {
    return '/topics/' + encodeURIComponent(topic);
  }

  // ---- formatting ------------------------------------------------------------------------------------------

  function count(value) {
    return (value === null || value === undefined) ? '–' : Number(value).toLocaleString('en-US');
  }

  function rate(value) {
    if (value === null || value === undefined) {
      return '–';
    }
    if (value === 0) {
      return '0';
    }
    return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toPrecision(2);
  }

  function millis(value) {
    if (value >= 60000) {
      return (value / 60000).toFixed(1) + ' min';
    }
    if (value >= 1000) {
      return (value / 1000).toFixed(value >= 10000 ? 0 : 1) + ' s';
    }
    return (value >= 10 ? Math.round(value) : Number(value.toPrecision(2))) + ' ms';
  }

  function span(ms) {
    var seconds = Math.round(Math.abs(ms) / 1000);
    if (seconds < 60) {
      return seconds + 's';
    }
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) {
      return minutes + 'm ' + (seconds % 60) + 's';
    }
    var hours = Math.floor(minutes / 60);
    if (hours < 48) {
      return hours + 'h ' + (minutes % 60) + 'm';
    }
    return Math.floor(hours / 24) + 'd ' + (hours % 24) + 'h';
  }

  function when(iso) {
    if (!iso) {
      return '–';
    }
    var delta = new Date(iso).getTime() - Date.now();
    return delta > 0 ? 'in ' + span(delta) : span(delta) + ' ago';
  }

  function time(iso) {
    return el('time', { datetime: iso, title: iso, text: when(iso) });
  }

  // ---- the topics table ------------------------------------------------------------------------------------

  var SVG = 'http://www.w3.org/2000/svg';

  function sparkline(trend) {
    var width = 120;
    var height = 28;
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    svg.setAttribute('class', 'sparkline');
    var series = [
      { name: 'pending', values: trend.waiting.map(function (w, i) { return w + trend.ready[i]; }) },
      { name: 'inflight', values: trend.inflight },
      { name: 'dead', values: trend.dead }
    ];
    var max = 1;
    series.forEach(function (s) {
      s.values.forEach(function (v) {
        max = Math.max(max, v);
      });
    });
    series.forEach(function (s) {
      if (s.values.length < 2) {
        return;
      }
      var points = s.values.map(function (v, i) {
        var x = (i / (s.values.length - 1)) * (width - 2) + 1;
        var y = height - 1 - (v / max) * (height - 2);
        return x.toFixed(1) + ',' + y.toFixed(1);
      });
      var line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('points', points.join(' '));
      line.setAttribute('class', 'line ' + s.name);
      svg.appendChild(line);
    });
    var title = document.createElementNS(SVG, 'title');
    title.textContent = 'pending (waiting + ready), in flight and dead over the last ' + trend.at.length + ' samples';
    svg.appendChild(title);
    return svg;
  }

  function writeButton(label, onclick, className) {
    return el('button', {
      type: 'button',
      className: 'write ' + (className || ''),
      disabled: !writable,
      title: writable ? null : 'Read-only: open writes with management.endpoint.delayqueue.access=unrestricted',
      onclick: onclick,
      text: label
    });
  }

  function topicRow(topic) {
    var lateness = topic.lateness
      ? millis(topic.lateness.p50Millis) + ' / ' + millis(topic.lateness.p99Millis)
      : '–';
    var limits = [];
    if (topic.ratePerSecond) {
      limits.push('≤' + rate(topic.ratePerSecond) + '/s');
    }
    if (topic.maxInFlight) {
      limits.push('≤' + topic.maxInFlight + ' in flight');
    }
    var stateCell = el('td', { className: 'state' }, [
      el('span', { className: 'badge ' + (topic.paused ? 'paused' : 'running'), text: topic.paused ? 'paused' : 'running' }),
      limits.length ? el('span', { className: 'note', text: ' ' + limits.join(', ') }) : null
    ]);
    var name = el('button', {
      type: 'button',
      className: 'link topic-link',
      onclick: function () { select(topic.topic); },
      text: topic.topic
    });
    var row = el('tr', { id: 'topic-row-' + topic.topic, 'data-topic': topic.topic,
      className: topic.topic === state.topic ? 'selected' : null }, [
      el('td', { className: 'topic-name' }, [name,
        topic.partitions > 1 ? el('span', { className: 'note', text: ' ×' + topic.partitions + ' partitions' }) : null]),
      el('td', { className: 'num waiting', text: count(topic.waiting) }),
      el('td', { className: 'num ready', text: count(topic.ready) }),
      el('td', { className: 'num inflight', text: count(topic.inflight) }),
      el('td', { className: 'num retrying', text: count(topic.retrying) }),
      el('td', { className: 'num dead' + (topic.dead > 0 ? ' alarm' : ''), text: count(topic.dead) }),
      el('td', { className: 'trend' }, [sparkline(topic.trend)]),
      el('td', { className: 'num scheduled-rate', text: rate(topic.scheduledPerSecond) }),
      el('td', { className: 'num delivered-rate', text: rate(topic.deliveredPerSecond) }),
      el('td', { className: 'num lateness', text: lateness }),
      el('td', { className: 'next-due' }, [topic.nextDueAt ? time(topic.nextDueAt) : '–']),
      stateCell,
      el('td', { className: 'actions' }, [topic.paused
        ? writeButton('Resume', function () { act('POST', topicPath(topic.topic) + '/resume', 'Resumed ' + topic.topic); }, 'resume')
        : writeButton('Pause', function () { act('POST', topicPath(topic.topic) + '/pause', 'Paused ' + topic.topic); }, 'pause')])
    ]);
    return row;
  }

  function renderOverview(overview) {
    state.overview = overview;
    $('status').textContent = overview.sampledAt
      ? 'sampled ' + when(overview.sampledAt) + ' · every ' + millis(overview.refreshMillis)
      : 'not sampled yet';
    $('failure').textContent = overview.failure ? 'Sampling failed: ' + overview.failure : '';
    var rows = clear($('topic-rows'));
    overview.topics.forEach(function (topic) {
      rows.appendChild(topicRow(topic));
    });
    if (!overview.topics.length) {
      rows.appendChild(el('tr', { className: 'empty' }, [el('td', { colspan: 13,
        text: 'No topic yet: schedule a message or start a listener.' })]));
    }
    $('unsampled').textContent = overview.unsampledTopics
      ? overview.unsampledTopics + ' more known topics are not sampled (delayqueue.dashboard.max-topics).'
      : '';
    var schedules = clear($('recurring-rows'));
    overview.recurring.forEach(function (schedule) {
      schedules.appendChild(el('tr', { 'data-schedule': schedule.name }, [
        el('td', { text: schedule.name }),
        el('td', { text: schedule.topic }),
        el('td', { text: schedule.schedule + (schedule.zone ? ' (' + schedule.zone + ')' : '') }),
        el('td', { text: schedule.paused ? 'paused' : 'active' }),
        el('td', {}, [schedule.lastTick ? time(schedule.lastTick) : '–']),
        el('td', { className: 'next-tick' }, [schedule.nextTick ? time(schedule.nextTick) : '–'])
      ]));
    });
    if (!overview.recurring.length) {
      schedules.appendChild(el('tr', { className: 'empty' }, [el('td', { colspan: 6, text: 'No recurring schedule.' })]));
    }
    renderDetailHeader();
  }

  // ---- one topic -----------------------------------------------------------------------------------------------

  function selectedOverview() {
    if (!state.overview || !state.topic) {
      return null;
    }
    return state.overview.topics.filter(function (t) { return t.topic === state.topic; })[0] || null;
  }

  function renderDetailHeader() {
    var topic = selectedOverview();
    if (!state.topic) {
      return;
    }
    $('detail-topic').textContent = state.topic;
    var badge = $('detail-state');
    badge.textContent = topic ? (topic.paused ? 'paused' : 'running') : 'not sampled';
    badge.className = 'badge ' + (topic && topic.paused ? 'paused' : 'running');
    $('dead-total').textContent = topic ? '(' + count(topic.dead) + ')' : '';
    var rateInput = $('limit-rate');
    var capInput = $('limit-cap');
    if (topic && document.activeElement !== rateInput && document.activeElement !== capInput) {
      rateInput.value = topic.ratePerSecond || '';
      capInput.value = topic.maxInFlight || '';
    }
  }

  function select(topic) {
    if (location.hash !== '#topic=' + encodeURIComponent(topic)) {
      location.hash = 'topic=' + encodeURIComponent(topic);
      return; // the hashchange handler selects it
    }
    state.topic = topic;
    state.waitingCursors = [null];
    state.deadOffset = 0;
    state.timelineAt = 0;
    $('topic-detail').hidden = false;
    clear($('lookup-result'));
    $('action-result').textContent = '';
    Array.prototype.forEach.call(document.querySelectorAll('#topic-rows tr'), function (row) {
      row.classList.toggle('selected', row.dataset.topic === topic);
    });
    renderDetailHeader();
    refreshDetail();
  }

  function refreshDetail() {
    if (!state.topic) {
      return Promise.resolve();
    }
    var work = [loadWaiting(), loadDead()];
    if (Date.now() - state.timelineAt >= TIMELINE_EVERY_MS) {
      // the groups too: counted with a ZCARD per group (bounded), not on every refresh
      work.push(loadTimeline(), loadGroups());
    }
    return Promise.all(work);
  }

  function loadTimeline() {
    var topic = state.topic;
    state.timelineAt = Date.now();
    return getJson(topicPath(topic) + '/timeline?seconds=' + $('horizon').value).then(function (timeline) {
      if (topic !== state.topic || !timeline) {
        return;
      }
      var box = clear($('timeline'));
      var max = 1;
      var total = 0;
      timeline.buckets.forEach(function (bucket) {
        max = Math.max(max, bucket.count);
        total += bucket.count;
      });
      timeline.buckets.forEach(function (bucket) {
        var label = count(bucket.count) + ' due ' + when(bucket.from) + ' (' + bucket.from + ')';
        box.appendChild(el('div', { className: 'bucket', title: label, 'data-count': bucket.count }, [
          el('div', { className: 'bar', style: 'height:' + Math.round((bucket.count / max) * 100) + '%' }),
          el('span', { className: 'bucket-count', text: bucket.count ? count(bucket.count) : '' })
        ]));
      });
      $('timeline-note').textContent = count(total) + ' waiting messages due in the next '
        + $('horizon').selectedOptions[0].textContent + ', ' + span(timeline.bucketMillis) + ' per bar'
        + (timeline.overdue ? '; ' + count(timeline.overdue) + ' due already' : '')
        + (timeline.later ? '; ' + count(timeline.later) + ' due later' : '');
    }).catch(showError);
  }

  function loadGroups() {
    var topic = state.topic;
    return getJson(topicPath(topic) + '/groups?top=' + PAGE).then(function (top) {
      if (topic !== state.topic || !top) {
        return;
      }
      var rows = clear($('groups-rows'));
      top.groups.forEach(function (group) {
        rows.appendChild(el('tr', { 'data-group': group.group }, [
          el('td', { className: 'id', text: group.group }),
          el('td', { className: 'num waiting', text: count(group.waiting) }),
          el('td', { className: 'num inflight', text: count(group.inFlight) }),
          el('td', { className: 'num', text: group.weight }),
          el('td', { text: group.paused ? 'paused' : '' })
        ]));
      });
      if (!top.groups.length) {
        rows.appendChild(el('tr', { className: 'empty' }, [el('td', { colspan: 5, text: 'No group has messages waiting.' })]));
      }
      $('groups-note').textContent = top.complete ? ''
        : 'among the first ' + count(1000) + ' groups in turn and ' + count(1000) + ' held of each partition';
    }).catch(showError);
  }

  function messageCells(message) {
    return [
      el('td', { className: 'id', text: message.id }),
      el('td', {}, [message.dueAt ? time(message.dueAt) : (message.diedAt ? time(message.diedAt) : '–')]),
      el('td', { text: message.state }),
      el('td', { className: 'num', text: message.attempts }),
      el('td', { className: 'error', text: message.error || '' }),
      el('td', { className: 'payload', text: message.payload + (message.payloadCut ? '…' : '') })
    ];
  }

  function loadWaiting() {
    var topic = state.topic;
    var cursor = state.waitingCursors[state.waitingCursors.length - 1];
    var query = '/waiting?limit=' + PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
    return getJson(topicPath(topic) + query).then(function (page) {
      if (topic !== state.topic || !page) {
        return;
      }
      var rows = clear($('waiting-rows'));
      page.messages.forEach(function (message) {
        rows.appendChild(el('tr', { 'data-id': message.id }, messageCells(message)));
      });
      if (!page.messages.length) {
        rows.appendChild(el('tr', { className: 'empty' }, [el('td', { colspan: 6, text: 'Nothing waits.' })]));
      }
      $('waiting-next').disabled = !page.nextCursor;
      $('waiting-next').dataset.cursor = page.nextCursor || '';
      $('waiting-first').disabled = state.waitingCursors.length === 1;
    }).catch(showError);
  }

  function loadDead() {
    var topic = state.topic;
    return getJson(topicPath(topic) + '/dead?offset=' + state.deadOffset + '&limit=' + PAGE).then(function (page) {
      if (topic !== state.topic || !page) {
        return;
      }
      var rows = clear($('dead-rows'));
      page.deadLetters.forEach(function (letter) {
        var cells = [
          el('td', { className: 'id', text: letter.id }),
          el('td', {}, [time(letter.diedAt)]),
          el('td', { className: 'num', text: letter.attempts }),
          el('td', { className: 'error', text: letter.error || '' }),
          el('td', { className: 'payload', text: letter.payload + (letter.payloadCut ? '…' : '') }),
          el('td', { className: 'actions' }, [
            writeButton('Replay', function () {
              act('POST', topicPath(topic) + '/dead/replay?id=' + encodeURIComponent(letter.id), 'Replayed ' + letter.id);
            }, 'replay'),
            writeButton('Purge', function () {
              if (window.confirm('Delete dead letter ' + letter.id + ' for good?')) {
                act('DELETE', topicPath(topic) + '/dead?id=' + encodeURIComponent(letter.id), 'Purged ' + letter.id);
              }
            }, 'purge danger')
          ])
        ];
        rows.appendChild(el('tr', { 'data-id': letter.id }, cells));
      });
      if (!page.deadLetters.length) {
        rows.appendChild(el('tr', { className: 'empty' }, [el('td', { colspan: 6, text: 'No dead letters.' })]));
      }
      $('dead-total').textContent = '(' + count(page.total) + ')';
      $('dead-previous').disabled = state.deadOffset === 0;
      $('dead-next').disabled = state.deadOffset + page.deadLetters.length >= page.total;
    }).catch(showError);
  }

  function lookup(id) {
    var topic = state.topic;
    var box = clear($('lookup-result'));
    return getJson(topicPath(topic) + '/message?id=' + encodeURIComponent(id)).then(function (message) {
      if (topic !== state.topic) {
        return;
      }
      if (!message) {
        box.appendChild(el('p', { className: 'not-found', text: 'No message ' + id + ' in ' + topic
          + ': never scheduled, or delivered, cancelled, purged or expired.' }));
        return;
      }
      var rows = [
        ['Id', message.id], ['State', message.state],
        ['Due', message.dueAt ? when(message.dueAt) + ' (' + message.dueAt + ')' : '–'],
        ['Died', message.diedAt ? when(message.diedAt) + ' (' + message.diedAt + ')' : null],
        ['Attempts', String(message.attempts)], ['Last error', message.error],
        ['Scheduled', message.createdAt], ['Expires', message.expiresAt],
        ['Headers', Object.keys(message.headers).length ? JSON.stringify(message.headers) : null],
        ['Payload', message.payload + (message.payloadCut ? '…' : '')]
      ];
      var list = el('dl', { className: 'message', 'data-id': message.id, 'data-state': message.state });
      rows.forEach(function (row) {
        if (row[1]) {
          list.appendChild(el('dt', { text: row[0] }));
          list.appendChild(el('dd', { className: 'field-' + row[0].toLowerCase().replace(' ', '-'), text: row[1] }));
        }
      });
      box.appendChild(list);
    }).catch(showError);
  }

  // ---- writes ----------------------------------------------------------------------------------------------

  function act(method, path, done, body) {
    return send(method, path, body).then(function (result) {
      var suffix = (result && typeof result.count === 'number') ? ' (' + result.count + ')' : '';
      $('action-result').textContent = done + suffix;
      $('action-result').className = 'note ok';
      state.timelineAt = 0;
      return refresh();
    }).catch(showError);
  }

  function showError(error) {
    var box = $('action-result');
    box.textContent = error.message || String(error);
    box.className = 'note error';
  }

  // ---- wiring ----------------------------------------------------------------------------------------------

  function refresh() {
    return getJson('/overview').then(function (overview) {
      if (overview) {
        renderOverview(overview);
      }
      return refreshDetail();
    }).catch(function (error) {
      $('failure').textContent = 'Dashboard API: ' + (error.message || error);
    });
  }

  function poll() {
    refresh().then(function () {
      window.setTimeout(poll, refreshMs);
    });
  }

  function selectFromHash() {
    var match = /^#topic=(.+)$/.exec(location.hash);
    if (match) {
      select(decodeURIComponent(match[1]));
    }
  }

  $('pause').addEventListener('click', function () {
    act('POST', topicPath(state.topic) + '/pause', 'Paused ' + state.topic);
  });
  $('resume').addEventListener('click', function () {
    act('POST', topicPath(state.topic) + '/resume', 'Resumed ' + state.topic);
  });
  $('limits-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var rateValue = $('limit-rate').value;
    var capValue = $('limit-cap').value;
    act('POST', topicPath(state.topic) + '/limits', 'Limits set on ' + state.topic, {
      ratePerSecond: rateValue === '' ? null : Number(rateValue),
      maxInFlight: capValue === '' ? null : Number(capValue)
    });
  });
  $('replay-all').addEventListener('click', function () {
    act('POST', topicPath(state.topic) + '/dead/replay', 'Replayed the dead letters of ' + state.topic);
  });
  $('purge-all').addEventListener('click', function () {
    if (window.confirm('Delete every dead letter of ' + state.topic + ' for good?')) {
      act('DELETE', topicPath(state.topic) + '/dead', 'Purged the dead letters of ' + state.topic);
    }
  });
  $('lookup-form').addEventListener('submit', function (event) {
    event.preventDefault();
    lookup($('lookup-id').value.trim());
  });
  $('horizon').addEventListener('change', function () {
    loadTimeline();
  });
  $('waiting-next').addEventListener('click', function () {
    var cursor = $('waiting-next').dataset.cursor;
    if (cursor) {
      state.waitingCursors.push(cursor);
      loadWaiting();
    }
  });
  $('waiting-first').addEventListener('click', function () {
    state.waitingCursors = [null];
    loadWaiting();
  });
  $('dead-previous').addEventListener('click', function () {
    state.deadOffset = Math.max(0, state.deadOffset - PAGE);
    loadDead();
  });
  $('dead-next').addEventListener('click', function () {
    state.deadOffset += PAGE;
    loadDead();
  });
  window.addEventListener('hashchange', selectFromHash);

  selectFromHash();
  poll();
}());
