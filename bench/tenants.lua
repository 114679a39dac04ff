-- wrk script of bench/tenants.sh: requests, in turn, every "HOST PATH"
-- line of the file named after wrk's "--", with that Host header, so that
-- one load spreads over many live sites. Each thread starts at its own
-- place in the list.
--
--   wrk -t2 -c64 -d10s -s bench/tenants.lua http://127.0.0.1:8080 -- list.txt

local threads = 0

function setup(thread)
	thread:set("id", threads)
	threads = threads + 1
end

local reqs = {}
local n = 0

function init(args)
	for line in io.lines(args[1]) do
		local host, path = line:match("^(%S+)%s+(%S+)$")
		if host then
			reqs[#reqs + 1] = wrk.format("GET", path, { Host = host })
		end
	end
	if #reqs == 0 then
		error("no HOST PATH lines in " .. tostring(args[1]))
	end
	n = ((id or 0) * 7919) % #reqs
end

function request()
	n = n % #reqs + 1
	return reqs[n]
end
