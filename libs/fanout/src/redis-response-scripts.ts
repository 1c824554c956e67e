/**
 * The Redis resumer's writes, each one script so its bounds are checked and applied at once, however
 * many replicas record. A recorder's set is named from the recorder held beside the response, so
 * these scripts expect one Redis (not a cluster), as the rest of the fan-out does.
 */

const STATE_OF = `
local function stateOf(key)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #last == 0 then return 'none' end
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'type' then
      if fields[i + 1] == 'token' then return 'in_progress' end
      return fields[i + 1]
    end
  end
  return 'in_progress'
end
local function recorderSet(name) return 'memstream:response-recorder:' .. name end
`;

/**
 * KEYS: the response's stream, its sizes (hash: recorder, bytes, tokens), the caller's set of
 * responses in progress. ARGV: conversation id, recorder, now (ms), idle s, retention s, max bytes,
 * max tokens, max in progress, done (1/0), then the tokens.
 * Answers {'recorded'}, {'cancelled'} or {'refused', bound, limit}; a refused call changes nothing.
 */
export const RECORD_SCRIPT = `${STATE_OF}
local state = stateOf(KEYS[1])
if state == 'cancelled' then return {'cancelled'} end
local fresh = state ~= 'in_progress'
local now = tonumber(ARGV[3])
local idle = tonumber(ARGV[4])
local count = #ARGV - 9
local add = 0
for i = 10, #ARGV do add = add + #ARGV[i] end
local bytes, tokens = 0, 0
if fresh then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[8]) then return {'refused', 'in_progress', tonumber(ARGV[8])} end
else
  bytes = tonumber(redis.call('HGET', KEYS[2], 'bytes') or '0')
  tokens = tonumber(redis.call('HGET', KEYS[2], 'tokens') or '0')
end
if bytes + add > tonumber(ARGV[6]) then return {'refused', 'bytes', tonumber(ARGV[6])} end
if tokens + count > tonumber(ARGV[7]) then return {'refused', 'tokens', tonumber(ARGV[7])} end
local recorder = ARGV[2]
if fresh then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('HSET', KEYS[2], 'recorder', recorder)
else
  recorder = redis.call('HGET', KEYS[2], 'recorder') or recorder
end
for i = 10, #ARGV do redis.call('XADD', KEYS[1], '*', 'type', 'token', 'text', ARGV[i]) end
redis.call('HSET', KEYS[2], 'bytes', bytes + add, 'tokens', tokens + count)
if ARGV[9] == '1' then
  redis.call('XADD', KEYS[1], '*', 'type', 'done')
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
  redis.call('ZREM', recorderSet(recorder), ARGV[1])
else
  redis.call('EXPIRE', KEYS[1], idle)
  redis.call('EXPIRE', KEYS[2], idle)
  redis.call('ZADD', recorderSet(recorder), now + idle * 1000, ARGV[1])
  redis.call('EXPIRE', recorderSet(recorder), idle)
end
return {'recorded'}
`;

/**
 * KEYS: the response's stream and sizes. ARGV: 'cancel' or 'discard', retention s, conversation id.
 * cancel ends a response in progress (1; 0 when none is); discard forgets it whatever its state.
 */
export const STOP_SCRIPT = `${STATE_OF}
local recorder = redis.call('HGET', KEYS[2], 'recorder')
if ARGV[1] == 'discard' then
  redis.call('DEL', KEYS[1], KEYS[2])
  if recorder then redis.call('ZREM', recorderSet(recorder), ARGV[3]) end
  return 1
end
if stateOf(KEYS[1]) ~= 'in_progress' then return 0 end
redis.call('XADD', KEYS[1], '*', 'type', 'cancelled')
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
if recorder then redis.call('ZREM', recorderSet(recorder), ARGV[3]) end
return 1
`;
