-- What a script that forgets a waiting message reads of meta, in the one command that reads the bucket count: whether
-- the topic ever stored a message with an expiry deadline (meta's expiry field), so that it deletes from the expiry
-- hash only then (see forgetWaiting in the dead module).
if metaAlso then
  metaAlso[#metaAlso + 1] = 'expiry'
else
  metaAlso = { 'expiry' }
end
