-- wrk script for bench/commands.py: POST one command body with a fresh X-Idempotency-Key on
-- every request (the same key would replay the stored answer instead of running the command).
--
--   wrk -s bench/commands.lua -H 'Authorization: ...' -H 'X-Install-ID: ...' URL BODY_FILE NONCE
--
-- BODY_FILE holds the JSON body; NONCE (8 hex digits) keeps the keys of different runs apart.
-- A key is NONCE-TTTT-4000-8000-CCCCCCCCCCCC: T the wrk thread, C its request counter. At the
-- end, one "status CODE COUNT" line per HTTP status received.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

function init(args)
  local file = assert(io.open(args[1], "rb"))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  wrk.headers["Content-Type"] = "application/json"
  file:close()
  nonce = args[2]
  sent = 0
  statuses = {}
end

function request()
  sent = sent + 1
  -- wrk.headers holds the -H headers too; a headers table given to wrk.format would not.
  wrk.headers["X-Idempotency-Key"] =
    string.format("%s-%04x-4000-8000-%012x", nonce, thread_number, sent)
  return wrk.format()
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      io.write(string.format("status %d %d\n", status, count))
    end
  end
end
