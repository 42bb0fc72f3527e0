-- wrk script for `npm run bench`: POSTs the request bodies of a file (one JSON body per line) in
-- turn, with the headers of another file (one `name: value` per line), and prints one JSON line
-- with the counts and latency percentiles at the end (after the marker, for bench/wrk.ts).
-- A body holding `{{n}}` has it replaced by a number no other request of the run has (creates of
-- a unique field): the thread's start in seconds times 100,000 plus a counter, so that a later
-- run never repeats one (a run would have to create 100,000 records a second for that).
--
-- With a third argument N, a thread stops after N answers and says so (bench/wrk.ts then ends wrk
-- with SIGINT, after which it prints its summary as at the end of its time): smoke runs. Without it
-- there is no `response` function, which would cost wrk CPU on every answer.
--
--   wrk -t1 -c32 -d5s -s bench/wrk/post.lua http://127.0.0.1:PORT/api/lead/get -- BODIES HEADERS [N]

local bodies = {}
local headers = {}
local next_body = 0
local numbered = {}
local counter = 0
local first_number = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then bodies[#bodies + 1] = line end
  end
  for line in io.lines(args[2]) do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    if name then headers[name] = value end
  end
  if #bodies == 0 then error("no request bodies in " .. args[1]) end
  for i, body in ipairs(bodies) do numbered[i] = body:find("{{n}}", 1, true) ~= nil end
  first_number = os.time() * 100000
  local stop_after = tonumber(args[3] or "")
  if stop_after then
    local answers = 0
    response = function()
      answers = answers + 1
      if answers == stop_after then
        io.write("\nBENCH_STOPPED\n")
        io.flush()
        wrk.thread:stop()
      end
    end
  end
  -- Threads start at different places, so that they do not ask for the same records in step.
  next_body = math.random(0, #bodies - 1)
end

function request()
  next_body = next_body % #bodies + 1
  local body = bodies[next_body]
  if numbered[next_body] then
    counter = counter + 1
    body = body:gsub("{{n}}", string.format("%.0f", first_number + counter))
  end
  return wrk.format("POST", nil, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
