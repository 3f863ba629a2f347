-- What a claim reads of meta, in the one command that reads the bucket count, so that none of it costs a command of
-- its own: the last lease token handed out, when the upkeep last ran on a claim that leased messages, whether the
-- topic ever stored a message with an expiry deadline, how early a claims record may end (see the claims section), and
-- whether the topic has subscriptions (see the fanout module).
metaAlso = { 'token', 'upkeep', 'expiry', 'claims', 'subs' }
