#!/usr/bin/env bash
# A throw-away single-node Slurm cluster with accounting, for the test that reads real `sacct`
# output (docs/slurm-test-cluster.md): a private MariaDB server, slurmdbd, slurmctld and one
# slurmd whose node has 8 GPUs (gres/gpu on 8 empty files standing for devices), all in one
# scratch directory.
#
#   scripts/slurm-test-cluster.sh start [DIR]   write the configs into DIR (default: a new
#                                               mktemp -d /tmp/paratune-slurm.XXXXXX), start the
#                                               four daemons on free TCP ports of 127.0.0.1, wait
#                                               until the node is idle; prints DIR on its last line
#   scripts/slurm-test-cluster.sh stop DIR      stop everything started in DIR, remove DIR
#
# Clients then use the cluster with SLURM_CONF=DIR/slurm.conf (DIR/env sets it). start exits 77
# with one line naming what is missing when Debian's slurmctld, slurmd, slurmdbd, slurm-client or
# mariadb-server is not installed (scripts/install-deps.sh), and 1 with the log's tail when a
# daemon does not come up (after stopping what it started). Every wait is bounded.
#
# DIR/owner holds the pid of whoever owns the cluster (PARATUNE_SLURM_OWNER, else start's
# caller); a later start stops and removes the clusters under /tmp/paratune-slurm.* whose owner
# has gone (a test killed at its timeout before its EXIT trap could run stop).
#
# Authentication: auth/none and cred/none where the Slurm build still has them (Debian 12's
# 22.05 does; later Slurm releases dropped them), else (or with PARATUNE_SLURM_AUTH=munge) a
# private munged with its own key and socket in DIR. Everything runs as the calling user (root in
# CI: SlurmUser=root); no cgroups (proctrack/linuxproc, task/none), nothing read from /etc/slurm
# or /etc/mysql. Each daemon runs in the foreground of its own session with its pid in DIR/pids/;
# every process started carries PARATUNE_SLURM_TEST_DIR=DIR in its environment, so stop also
# finds the jobs' slurmstepd and their children.
set -uo pipefail

usage() { echo "usage: $0 start [DIR] | stop DIR" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
action="$1"
case "$action" in start|stop) ;; *) usage ;; esac
[ "$action" = stop ] && [ $# -ne 2 ] && usage

# Processes whose environment names DIR (daemons, slurmstepd, job scripts).
marked_pids() {
  grep -lzxF "PARATUNE_SLURM_TEST_DIR=$dir" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | grep -vx "$$"
}

# Sends TERM to the pids, waits up to $2 seconds for them to go, then KILLs the rest.
term_wait() {
  local pids="$1" secs="$2" p alive i
  [ -n "$pids" ] || return 0
  kill -TERM $pids 2>/dev/null
  for ((i = 0; i < secs * 10; i++)); do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive+=" $p"; done
    [ -z "$alive" ] && return 0
    sleep 0.1
  done
  kill -KILL $alive 2>/dev/null
  sleep 0.2
}

# The pid in DIR/pids/NAME, if that process still runs with DIR's mark.
daemon_pid() {
  local p
  p="$(cat "$dir/pids/$1" 2>/dev/null)"
  [[ "$p" =~ ^[0-9]+$ ]] && grep -qzxF "PARATUNE_SLURM_TEST_DIR=$dir" "/proc/$p/environ" 2>/dev/null && echo "$p"
}

stop_all() {
  local d pids=""
  # The Slurm daemons together (each takes about 2 s to stop), then the database they wrote to,
  # then whatever is left: jobs' slurmstepd and scripts.
  for d in slurmd slurmctld slurmdbd munged; do pids+=" $(daemon_pid "$d")"; done
  term_wait "$pids" 10
  term_wait "$(daemon_pid mariadbd)" 10
  term_wait "$(marked_pids | tr '\n' ' ')" 5
}

if [ "$action" = stop ]; then
  dir="$2"
  [ -d "$dir" ] || { echo "no $dir: nothing to stop"; exit 0; }
  dir="$(cd "$dir" && pwd)"
  [ -f "$dir/slurm.conf" ] || [ -d "$dir/pids" ] || { echo "$dir is not a slurm-test-cluster directory" >&2; exit 2; }
  stop_all
  left="$(marked_pids | tr '\n' ' ')"
  rm -rf "$dir"
  if [ -n "$left" ]; then echo "still running after stop: $left" >&2; exit 1; fi
  echo "Slurm test cluster in $dir stopped and removed"
  exit 0
fi

# --- start ----------------------------------------------------------------------------------
missing=()
for b in slurmctld slurmd slurmdbd sbatch sacct sacctmgr scontrol sinfo; do
  command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$b" >/dev/null 2>&1 || missing+=("$b")
done
export PATH="$PATH:/usr/sbin"
mariadbd_bin="$(command -v mariadbd || command -v mysqld || true)"
install_db="$(command -v mariadb-install-db || command -v mysql_install_db || true)"
mysql_client="$(command -v mariadb || command -v mysql || true)"
[ -n "$mariadbd_bin" ] || missing+=(mariadbd)
[ -n "$install_db" ] || missing+=(mariadb-install-db)
[ -n "$mysql_client" ] || missing+=(mariadb)
if ((${#missing[@]})); then
  echo "Slurm test cluster not started: ${missing[*]} not installed (Debian: slurmctld slurmd slurmdbd slurm-client mariadb-server; scripts/install-deps.sh)"
  exit 77
fi

# Clusters of earlier runs whose owner is gone (a test killed at its CTest timeout, whose EXIT
# trap never ran): stopped and removed.
for old in /tmp/paratune-slurm.*; do
  [ -f "$old/owner" ] || continue
  o="$(cat "$old/owner" 2>/dev/null)"
  [[ "$o" =~ ^[0-9]+$ ]] && kill -0 "$o" 2>/dev/null && continue
  echo "stopping the stale Slurm test cluster in $old (its owner $o is gone)" >&2
  bash "$0" stop "$old" >/dev/null 2>&1
done

if [ $# -eq 2 ]; then
  dir="$2"
  mkdir -p "$dir" || exit 1
  dir="$(cd "$dir" && pwd)"
  if [ -f "$dir/slurm.conf" ] || [ -d "$dir/pids" ]; then stop_all; fi  # a stale run
  rm -rf "${dir:?}"/* 2>/dev/null
else
  dir="$(mktemp -d /tmp/paratune-slurm.XXXXXX)" || exit 1
fi
# Unix sockets (MariaDB's, munged's, slurmd's per-step ones in its spool) must fit sun_path.
if [ ${#dir} -gt 60 ]; then
  echo "Slurm test cluster not started: $dir is too long for its unix sockets (at most 60 bytes; use a directory under /tmp)" >&2
  exit 1
fi
mkdir -p "$dir"/{pids,log,db,state,spool,out} || exit 1
# Whose cluster this is: PARATUNE_SLURM_OWNER (a pid), else the caller.
echo "${PARATUNE_SLURM_OWNER:-$PPID}" > "$dir/owner"
user="$(id -un)"
host="$(hostname -s)"

fail() {
  echo "Slurm test cluster not started: $1" >&2
  local f
  for f in "$dir"/log/*.log; do
    [ -s "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 15 "$f" >&2
  done
  stop_all
  exit 1
}

# A TCP port of 127.0.0.1 that nothing listens on, not handed out before in this run.
used_ports=" "
free_port() {
  local p i
  for ((i = 0; i < 200; i++)); do
    p=$((20000 + RANDOM % 30000))
    [[ "$used_ports" == *" $p "* ]] && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    used_ports+="$p "
    echo "$p"
    return 0
  done
  return 1
}

# Polls the command every 0.2 s for up to $2 seconds (wall clock) while the daemon $1 (a name in
# DIR/pids; - for none) lives.
wait_for() {
  local name="$1" end=$((SECONDS + $2))
  shift 2
  while :; do
    "$@" >/dev/null 2>&1 && return 0
    if [ "$name" != - ] && ! kill -0 "$(cat "$dir/pids/$name")" 2>/dev/null; then
      echo "$name exited:" >&2
      tail -n 5 "$dir/log/$name.out" >&2
      return 1
    fi
    ((SECONDS < end)) || return 1
    sleep 0.2
  done
}

# Slurm's clients retry a daemon that does not answer for long: each call is cut at 20 s.
for c in sacctmgr scontrol sinfo; do eval "$c() { timeout 20 $c \"\$@\"; }"; done

# Starts a daemon in the foreground of a new session, its output in DIR/log/NAME.out.
launch() {
  local name="$1"
  shift
  setsid env PARATUNE_SLURM_TEST_DIR="$dir" "$@" < /dev/null >> "$dir/log/$name.out" 2>&1 &
  echo $! > "$dir/pids/$name"
}

db_port="$(free_port)" && dbd_port="$(free_port)" && ctld_port="$(free_port)" && slurmd_port="$(free_port)" ||
  fail "no free TCP ports on 127.0.0.1"

# MariaDB: its own data directory, socket and port, nothing from /etc/mysql (--no-defaults).
sock="$dir/db.sock"
dbuser_opt=()
[ "$(id -u)" -eq 0 ] && dbuser_opt=(--user=root)
"$install_db" --no-defaults --datadir="$dir/db" "${dbuser_opt[@]}" --auth-root-authentication-method=normal \
  --skip-test-db > "$dir/log/mariadb-install-db.log" 2>&1 || fail "mariadb-install-db failed"
launch mariadbd "$mariadbd_bin" --no-defaults --datadir="$dir/db" "${dbuser_opt[@]}" --socket="$sock" \
  --port="$db_port" --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$dir/db.pid" \
  --log-error="$dir/log/mariadbd.log" --skip-log-bin --innodb-buffer-pool-size=64M \
  --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 \
  --innodb-lock-wait-timeout=900 --max-connections=50
wait_for mariadbd 30 timeout 10 "$mysql_client" --no-defaults --socket="$sock" -uroot -e "SELECT 1" || fail "mariadbd did not answer in 30 s"
dbpass="paratune-$RANDOM$RANDOM"
timeout 20 "$mysql_client" --no-defaults --socket="$sock" -uroot -e \
  "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$dbpass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" \
  > "$dir/log/mariadb-client.log" 2>&1 || fail "could not create the database user"

# Authentication plugin: auth/none where it exists, else a private munged.
plugindir="$(dirname "$(ls /usr/lib/*/slurm-wlm/auth_munge.so /usr/lib*/slurm/auth_munge.so 2>/dev/null | head -n 1)" 2>/dev/null)"
if [ "${PARATUNE_SLURM_AUTH:-}" != munge ] && [ -n "$plugindir" ] && [ -f "$plugindir/auth_none.so" ] &&
   [ -f "$plugindir/cred_none.so" ]; then
  auth="AuthType=auth/none"
  acct_auth=""
  cred="CredType=cred/none"
else
  munged_bin="$(command -v munged || true)"
  [ -n "$munged_bin" ] || fail "this Slurm has no auth/none and munged is not installed (Debian: munge)"
  mkdir -p "$dir/munge" && chmod 700 "$dir/munge"
  head -c 1024 /dev/urandom > "$dir/munge/key" && chmod 400 "$dir/munge/key"
  launch munged "$munged_bin" --foreground --force --socket="$dir/munge/sock" --key-file="$dir/munge/key" \
    --pid-file="$dir/munge/pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  wait_for munged 10 test -S "$dir/munge/sock" || fail "munged did not start in 10 s"
  # Clients reach slurmdbd with AccountingStoragePass (Slurm 22.05: the munge socket for
  # accounting), the other daemons with AuthInfo.
  auth="AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock"
  acct_auth="AccountingStoragePass=$dir/munge/sock"
  cred="CredType=cred/munge"
fi

cat > "$dir/slurmdbd.conf" <<EOF
$auth
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=$user
PidFile=$dir/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=$dbpass
StorageLoc=slurm_acct_db
EOF
chmod 600 "$dir/slurmdbd.conf"

# The node's 8 GPUs: gres/gpu needs device files to count (with Count= alone slurmd reports 0);
# plain files serve, since nothing (no cgroup) restricts devices.
mkdir -p "$dir/dev" && touch "$dir"/dev/gpu{0..7} || fail "cannot create $dir/dev"
cat > "$dir/gres.conf" <<EOF
NodeName=ptnode Name=gpu File=$dir/dev/gpu[0-7]
EOF

cat > "$dir/slurm.conf" <<EOF
# paratune's throw-away test cluster (scripts/slurm-test-cluster.sh)
ClusterName=paratune
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
$auth
$cred
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStorageTRES=gres/gpu
$acct_auth
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1,batch_sched_delay=0,sched_min_interval=0
PriorityType=priority/basic
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=2
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=5
NodeName=ptnode NodeAddr=127.0.0.1 NodeHostname=$host CPUs=8 RealMemory=4000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=ptnode Default=YES MaxTime=10 State=UP
EOF

cat > "$dir/env" <<EOF
export SLURM_CONF=$dir/slurm.conf
EOF
export SLURM_CONF="$dir/slurm.conf"

launch slurmdbd slurmdbd -D  # reads slurmdbd.conf beside $SLURM_CONF
# slurmdbd listens once it has created or checked its tables.
wait_for slurmdbd 60 sacctmgr -n list cluster || fail "slurmdbd did not answer in 60 s"
sacctmgr -i add cluster paratune > "$dir/log/sacctmgr.log" 2>&1 || fail "sacctmgr add cluster failed"

launch slurmctld slurmctld -D -i -f "$dir/slurm.conf"
wait_for slurmctld 30 scontrol ping || fail "slurmctld did not answer in 30 s"
launch slurmd slurmd -D -N ptnode -f "$dir/slurm.conf"
# The node registers idle, or invalid/drained when its configuration is refused.
node_settled() { sinfo -h -n ptnode -o %T 2>/dev/null | grep -Eq '^(idle|inval|drain)'; }
wait_for slurmd 30 node_settled
[ "$(sinfo -h -n ptnode -o %T 2>/dev/null)" = idle ] ||
  fail "node ptnode not idle in 30 s (sinfo: $(sinfo -h -N -o '%N %T %E' 2>&1 | head -n 3))"

echo "Slurm test cluster ($(slurmctld -V)) running: SLURM_CONF=$dir/slurm.conf"
echo "$dir"
