#!/usr/bin/env bash
# CTest SlurmLive.SacctHistoryOfRealJobsReads: the Slurm reader (src/scheduling/slurm_jobs.cc) on
# `sacct` output no one wrote by hand (docs/slurm-test-cluster.md). Starts the throw-away cluster
# of scripts/slurm-test-cluster.sh (one node, 8 GPUs), submits seven jobs of 1-8 GPUs (a
# two-task array, one requeued, one with a dependency, more demand than GPUs so some queue), waits
# for them and for slurmdbd to hold their records, exports the history with the command of
# docs/cluster-traces.md (and with Timelimit added, and with -D), and checks what
# `paratune cluster --json` and --jobs-out read against what was submitted and against the
# queueing computed here from the sacct text.
#   slurm-live-test.sh PARATUNE [DIR]
# With PARATUNE_SLURM_HISTORY_OUT=DIR2 the three sacct exports are also copied to DIR2.
# Exit 77 (skip) with one line when Slurm or MariaDB is not installed; every wait is bounded.
set -uo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 PARATUNE [DIR]" >&2; exit 2; }
paratune="$1"
here="$(cd "$(dirname "$0")" && pwd)"
t_begin=$(date +%s)
# Nothing from a surrounding Slurm job (CI inside an allocation) reaches sbatch.
for v in $(env | grep -o '^SLURM_[A-Z_]*' || true); do unset "$v"; done

out="$(PARATUNE_SLURM_OWNER=$$ bash "$here/slurm-test-cluster.sh" start ${2:+"$2"} 2>&1)"
rc=$?
if [ $rc -eq 77 ]; then echo "$out" | tail -n 1; exit 77; fi
if [ $rc -ne 0 ]; then echo "$out" >&2; exit 1; fi
dir="$(echo "$out" | tail -n 1)"
echo "$out" | tail -n 2 | head -n 1
trap 'bash "$here/slurm-test-cluster.sh" stop "$dir" >/dev/null' EXIT
export SLURM_CONF="$dir/slurm.conf"
t_up=$(date +%s)

fail() {
  echo "FAILED: $1" >&2
  squeue -a -o '%i %j %T %r' >&2 2>/dev/null
  local f
  if [ -n "${r:-}" ]; then
    echo "--- job $r (requeued)" >&2
    sacct -a -D -X -P -j "$r" -o JobID,State,ExitCode,Reason,Submit,Eligible,Start,End >&2 2>/dev/null
    grep -hF -e "JobId=$r " -e "JobId=$r(" -e "job $r" -e "[$r." "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null
    cat "$dir/out/requeued-$r.out" >&2 2>/dev/null
  fi
  for f in slurmctld slurmd slurmdbd; do
    echo "--- tail of $f.log" >&2
    tail -n 15 "$dir/log/$f.log" >&2 2>/dev/null
  done
  exit 1
}
# Polls the command every 0.2 s for up to $1 seconds (wall clock).
wait_for() {
  local end=$((SECONDS + $1))
  shift
  while :; do
    "$@" >/dev/null 2>&1 && return 0
    ((SECONDS < end)) || return 1
    sleep 0.2
  done
}
# Slurm's clients retry a daemon that does not answer for long: each call is cut at 20 s.
for c in sacct sacctmgr sbatch scontrol squeue; do eval "$c() { timeout 20 $c \"\$@\"; }"; done

user="$(id -un)"
sacctmgr -i add account paratune_acct Description=test Organization=paratune >/dev/null || fail "sacctmgr add account"
sacctmgr -i add user "$user" Account=paratune_acct DefaultAccount=paratune_acct >/dev/null || fail "sacctmgr add user"
sacctmgr -n -P list association user="$user" account=paratune_acct format=Cluster,Account,User | grep -q "^paratune|paratune_acct|$user$" ||
  fail "the association cluster paratune / account paratune_acct / user $user is not registered"

start="$(date -d '-60 sec' +%Y-%m-%dT%H:%M:%S)"
# The jobs carry PARATUNE_SLURM_TEST_DIR like the daemons, so that stop finds any left running.
submit() {
  PARATUNE_SLURM_TEST_DIR="$dir" sbatch --parsable -A paratune_acct -p gpu -t 2 -D "$dir/out" \
    -o "$dir/out/%x-%j.out" "$@"
}
declare -A gpus  # JobID as sacct prints it -> GPUs asked for
a=$(submit -J two --gres=gpu:2 --wrap 'sleep 3') || fail "sbatch two"
b=$(submit -J four --gres=gpu:4 --wrap 'sleep 3') || fail "sbatch four"
r=$(submit -J requeued --requeue --gres=gpu:1 --wrap 'sleep 3') || fail "sbatch requeued"
c=$(submit -J eight --gres=gpu:8 --wrap 'sleep 2') || fail "sbatch eight"  # waits for the three
d=$(submit -J after --gres=gpu:8 --dependency=afterok:"$a" --wrap 'sleep 1') || fail "sbatch after"
e=$(submit -J array --array=0-1 --gres=gpu:1 --wrap 'sleep 1') || fail "sbatch array"
gpus[$a]=2 gpus[$b]=4 gpus[$r]=1 gpus[$c]=8 gpus[$d]=8 gpus[${e}_0]=1 gpus[${e}_1]=1

# Requeue one job once its script runs (its output file exists). Slurm holds a requeued job for
# 120 s (BeginTime); release it 2 s after slurmd is done with the first run: slurmd refuses a
# launch whose credential is not newer, in whole seconds, than the kill ("Job N already killed,
# do not launch batch job", and the job ends FAILED).
state_is() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = "$2" ]; }
wait_for 20 state_is "$r" RUNNING || fail "job $r did not start in 20 s"
wait_for 10 test -e "$dir/out/requeued-$r.out" || fail "job $r's script did not start in 10 s"
scontrol requeue "$r" || fail "scontrol requeue $r"
wait_for 10 state_is "$r" PENDING || fail "job $r not pending after requeue"
wait_for 10 grep -qF "[$r.batch] done with job" "$dir/log/slurmd.log" || fail "slurmd not done with job $r's first run"
sleep 2
scontrol update JobId="$r" StartTime=now || fail "scontrol update $r StartTime=now"

queue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ] && scontrol ping >/dev/null; }
wait_for 60 queue_empty || fail "jobs still queued after 60 s"
t_jobs=$(date +%s)

fields=JobID,JobName,User,Account,Partition,QOS,Priority,Submit,Eligible,Start,End,Elapsed,State,AllocTRES,ReqTRES,NodeList,NNodes
export_history() {  # FILE [extra sacct options...]
  local f="$1"
  shift
  sacct -a -X -P -S "$start" -E now -o "$fields" "$@" > "$f"
}
# slurmdbd records the jobs shortly after they end: wait until every job has a COMPLETED row,
# and with -D the requeued run its REQUEUED row too.
records_in() {
  export_history "$dir/h.txt" || return 1
  [ "$(grep -c '|COMPLETED|' "$dir/h.txt")" -eq "${#gpus[@]}" ] || return 1
  export_history "$dir/hd.txt" -D || return 1
  grep -q '|REQUEUED|' "$dir/hd.txt"
}
wait_for 20 records_in || fail "slurmdbd does not hold the ${#gpus[@]} jobs after 20 s: $(cat "$dir/h.txt")"
t_db=$(date +%s)
export_history "$dir/history.txt" || fail "sacct"
sacct -a -X -P -S "$start" -E now -o "$fields,Timelimit" > "$dir/history-timelimit.txt" || fail "sacct Timelimit"
export_history "$dir/history-duplicates.txt" -D || fail "sacct -D"

# PARATUNE_SLURM_HISTORY_OUT=DIR keeps the three exports (for a look, or for fixtures).
if [ -n "${PARATUNE_SLURM_HISTORY_OUT:-}" ]; then
  mkdir -p "$PARATUNE_SLURM_HISTORY_OUT" && cp "$dir"/history*.txt "$PARATUNE_SLURM_HISTORY_OUT"/
fi
for h in history history-timelimit history-duplicates; do
  "$paratune" cluster --job-history "$dir/$h.txt" --nodes 1 --gpu H100 --json --quiet \
    --jobs-out "$dir/$h.jobs.csv" > "$dir/$h.json" || fail "paratune cluster on $h.txt: $(cat "$dir/$h.json")"
done

expected="$(for j in "${!gpus[@]}"; do echo "$j=${gpus[$j]}"; done)"
python3 - "$dir" "$expected" "$r" <<'PY' || fail "paratune's reading of the real sacct output (above)"
import csv, datetime, json, os, sys
d, expected, requeued = sys.argv[1], sys.argv[2], sys.argv[3]
want = {k: int(v) for k, v in (l.split("=") for l in expected.split())}

def t(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()

def rows(name):
    with open(os.path.join(d, name)) as f:
        return list(csv.DictReader(f, delimiter="|"))

errors = []
def check(cond, what):
    if not cond:
        errors.append(what)

plain = rows("history.txt")
check(sorted(r["JobID"] for r in plain) == sorted(want), f"sacct rows {[r['JobID'] for r in plain]} vs submitted {sorted(want)}")
check(all(r["State"] == "COMPLETED" for r in plain), "a job not COMPLETED")
waits = [t(r["Start"]) - t(r["Eligible"]) for r in plain]
mean = sum(waits) / len(waits)
check(max(waits) > 0, f"no job waited in the queue: {waits}")
dups = rows("history-duplicates.txt")
requeued_lines = [i + 2 for i, r in enumerate(dups) if r["State"] == "REQUEUED"]
check(len(requeued_lines) == 1 and dups[requeued_lines[0] - 2]["JobID"] == requeued,
      f"sacct -D: REQUEUED rows at lines {requeued_lines}, want one of job {requeued}")

for name, skipped in (("history", []), ("history-timelimit", []), ("history-duplicates", requeued_lines)):
    j = json.load(open(os.path.join(d, name + ".json")))
    tr = j["trace"]
    check(tr["format"] == "slurm-sacct", f"{name}: format {tr['format']}")
    check(tr["jobs"] == len(want), f"{name}: {tr['jobs']} jobs read, {len(want)} submitted")
    check(tr["skipped_count"] == len(skipped), f"{name}: skipped {tr['skipped']}")
    for s in tr["skipped"]:
        check(s["line"] in skipped and "requeued" in s["reason"], f"{name}: skipped {s}")
    q = tr.get("measured_queue_delay_s")
    check(q is not None and q["jobs"] == len(want), f"{name}: measured_queue_delay_s {q}")
    if q:
        check(q["mean"] > 0, f"{name}: mean measured queue delay {q['mean']} not > 0")
        check(abs(q["mean"] - mean) < 1e-6, f"{name}: mean measured queue delay {q['mean']}, sacct's Start - Eligible {mean}")
    with open(os.path.join(d, name + ".jobs.csv")) as f:
        got = {r["name"]: int(r["gpus"]) for r in csv.DictReader(f) if r["policy"] == "fifo"}
    check(got == want, f"{name}: GPUs per job {got}, submitted {want}")

print(f"{len(want)} jobs, GPUs {sorted(want.values())}, mean Start - Eligible {mean:.3f} s "
      f"(waits {sorted(waits)}), requeued row at line {requeued_lines}")
if errors:
    print("\n".join(errors), file=sys.stderr)
    for name in ("history.txt", "history-duplicates.txt"):
        print(f"--- {name}", file=sys.stderr)
        print(open(os.path.join(d, name)).read(), file=sys.stderr)
    sys.exit(1)
PY
t_end=$(date +%s)
echo "times: cluster up $((t_up - t_begin)) s, jobs $((t_jobs - t_up)) s, slurmdbd records $((t_db - t_jobs)) s, total $((t_end - t_begin)) s"
