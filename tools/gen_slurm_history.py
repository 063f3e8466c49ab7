#!/usr/bin/env python3
"""Writes a shared GPU cluster's Slurm history as `sacct --parsable2` prints it, made by simulating
Slurm's scheduler on a generated workload, with the slurm.conf and topology.conf it ran under.

The truth for `paratune cluster --slurm-conf`: the history's Start times come from this simulator,
written apart from paratune's replay (src/scheduling/slurm_policy.cc) from Slurm's documentation,
and it has what a real Slurm has and the replay does not see:
- fair share that moves while a job waits (priority_multifactor.html, "Fair-share Factor": the
  classic F = 2^(-U/S), usage decayed with PriorityDecayHalfLife, recomputed every
  PriorityCalcPeriod); the history records only each job's Priority at its start (sacct Priority);
- the main scheduler at every submission and completion and every sched_interval, and the
  backfill scheduler every bf_interval (sched_config.html, slurm.conf(5) SchedulerParameters);
- launch latency (a job's Start a second or two after it was scheduled), dependencies
  (--dependency=afterany: Eligible is the parent's End), jobs cancelled while pending, jobs killed
  at their time limit (TIMEOUT) and failed ones, job steps (.batch, .extern) in the output.

The workload: sizes 1-128 GPUs (one node for up to 8, whole nodes above), lognormal run times
(median 1 h), time limits as users ask them (the run time times 1.2-4, rounded up to 30 minutes,
or the partition's MaxTime), arrivals with a daily cycle. Deterministic for a seed.

  tools/gen_slurm_history.py --jobs 50000 --nodes 128 --seed 1 --out DIR
writes DIR/history.txt, DIR/slurm.conf, DIR/topology.conf (and prints the recorded mean wait).
"""
import argparse
import bisect
import datetime
import heapq
import math
import os
import random
import sys
import time

GPUS_PER_NODE = 8
NODES_PER_LEAF = 16
EPOCH = datetime.datetime(2026, 1, 5)

# slurm.conf of the simulated cluster: what the simulator follows and paratune maps.
PARTITIONS = {"gpu": dict(factor=1, max_time=2 * 86400), "urgent": dict(factor=4, max_time=12 * 3600)}
W_AGE, W_FAIRSHARE, W_PARTITION = 2000, 4000, 1000
MAX_AGE_S = 7 * 86400
DECAY_HALF_LIFE_S = 2 * 86400
CALC_PERIOD_S = 300
SCHED_INTERVAL_S = 60
BF_INTERVAL_S = 30
BF_MAX_JOB_TEST = 500
BF_WINDOW_S = 2 * 86400
ACCOUNTS = ["vision", "lang", "speech", "rl", "infra", "science", "robotics", "ads"]
SHARES = [30, 25, 10, 10, 5, 10, 5, 5]

SLURM_CONF = f"""# slurm.conf of the generated cluster (tools/gen_slurm_history.py)
ClusterName=gen
SchedulerType=sched/backfill
SchedulerParameters=bf_interval={BF_INTERVAL_S},bf_max_job_test={BF_MAX_JOB_TEST},bf_window={BF_WINDOW_S // 60},sched_interval={SCHED_INTERVAL_S}
SelectType=select/cons_tres
TopologyPlugin=topology/tree
PriorityType=priority/multifactor
PriorityWeightAge={W_AGE}
PriorityWeightFairshare={W_FAIRSHARE}
PriorityWeightPartition={W_PARTITION}
PriorityWeightJobSize=0
PriorityMaxAge=7-0
PriorityDecayHalfLife=2-0
PriorityCalcPeriod=5
PreemptType=preempt/none
GresTypes=gpu
NodeName=gpu[001-{{nodes:03d}}] Gres=gpu:{GPUS_PER_NODE} CPUs=224 RealMemory=2000000
PartitionName=gpu Nodes=ALL Default=YES MaxTime=2-00:00:00 PriorityJobFactor=1 State=UP
PartitionName=urgent Nodes=ALL MaxTime=12:00:00 PriorityJobFactor=4 State=UP
"""


def stamp(t):
    return (EPOCH + datetime.timedelta(seconds=int(round(t)))).strftime("%Y-%m-%dT%H:%M:%S")


def hms(s):
    s = int(round(s))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return (f"{d}-" if d else "") + f"{h:02d}:{m:02d}:{s:02d}"


def node_list(nodes):
    return ",".join(f"gpu{n + 1:03d}" for n in nodes)


class Job:
    __slots__ = ("id", "account", "user", "partition", "gpus", "run", "limit", "submit", "eligible", "parent",
                 "cancel_at", "state", "start", "end", "nodes", "priority", "sched", "key")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def workload(n_jobs, nodes, rng):
    sizes = [(1, .30), (2, .10), (4, .15), (8, .25), (16, .10), (32, .06), (64, .03), (128, .01)]
    cap = nodes * GPUS_PER_NODE
    mean_gpu_s = sum(g * p for g, p in sizes) * 3600 * math.exp(1.2 ** 2 / 2)
    # Arrivals for an offered load of 80% of the GPUs, with a daily cycle (x1.6 by day, x0.4 by night).
    rate = 0.80 * cap / mean_gpu_s
    jobs, t = [], 0.0
    for i in range(n_jobs):
        while True:
            t += rng.expovariate(1.6 * rate)
            if rng.random() < (1 + 0.6 * math.sin(2 * math.pi * t / 86400)) / 1.6:
                break
        r = rng.random()
        g = next(g for g, p in sizes if (r := r - p) < 0) if r < 1 else 128
        g = min(g, cap)
        part = "urgent" if rng.random() < 0.1 else "gpu"
        max_time = PARTITIONS[part]["max_time"]
        run = min(max(60.0, rng.lognormvariate(math.log(3600), 1.2)), max_time)
        limit = max_time if rng.random() < 0.3 else min(max_time, math.ceil(run * rng.uniform(1.2, 4) / 1800) * 1800)
        a = rng.choices(range(len(ACCOUNTS)), weights=SHARES)[0]
        job = Job(id=1000 + i, account=a, user=f"u{a}{rng.randrange(6)}", partition=part, gpus=g, run=run,
                  limit=limit, submit=t, eligible=t, parent=None, cancel_at=None, state="PENDING")
        if rng.random() < 0.02:  # killed at its time limit
            job.run = job.limit
        if jobs and rng.random() < 0.05:  # --dependency=afterany on a recent job of any user
            job.parent = jobs[-rng.randrange(1, min(20, len(jobs)) + 1)]
        if rng.random() < 0.01:  # cancelled if still pending after a while
            job.cancel_at = t + rng.uniform(600, 7200)
        jobs.append(job)
    return jobs


class Cluster:
    def __init__(self, nodes):
        self.n = nodes
        self.free = [GPUS_PER_NODE] * nodes
        self.holds = [dict() for _ in range(nodes)]  # node -> {job id: (gpus, expected end)}

    def place_now(self, g, ok=None):
        """topology/tree with select/cons_tres: one node, the fullest that holds the job; whole
        nodes for a wider job, inside the leaf with the fewest free whole nodes that holds them,
        else across the fewest leaves."""
        if g <= GPUS_PER_NODE:
            best = None
            for n in range(self.n):
                if self.free[n] >= g and (ok is None or ok(n, g)):
                    if best is None or self.free[n] < self.free[best]:
                        best = n
            return None if best is None else [(best, g)]
        k = -(-g // GPUS_PER_NODE)
        whole = [n for n in range(self.n) if self.free[n] == GPUS_PER_NODE and (ok is None or ok(n, GPUS_PER_NODE))]
        if len(whole) < k:
            return None
        leaves = {}
        for n in whole:
            leaves.setdefault(n // NODES_PER_LEAF, []).append(n)
        fits = [(len(v), l) for l, v in leaves.items() if len(v) >= k]
        if fits:
            chosen = leaves[min(fits)[1]][:k]
        else:
            chosen = []
            for _, l in sorted(((-len(v), l) for l, v in leaves.items())):
                chosen += leaves[l][:k - len(chosen)]
        return [(n, GPUS_PER_NODE) for n in chosen]


def simulate(jobs, nodes, rng):
    c = Cluster(nodes)
    usage = [0.0] * len(ACCOUNTS)  # decayed GPU-seconds
    share = [s / sum(SHARES) for s in SHARES]
    fairshare = [1.0] * len(ACCOUNTS)
    pending, running = {}, {}
    events = []  # (time, order, kind, job)
    for j in jobs:
        heapq.heappush(events, (j.submit, 1, "submit", j.id))
    by_id = {j.id: j for j in jobs}
    children = {}
    for j in jobs:
        if j.parent is not None:
            children.setdefault(j.parent.id, []).append(j)
    last_calc, next_main, next_bf, next_tick = 0.0, 0.0, 0.0, 0.0

    def prio(j, now):
        age = min(1.0, max(0.0, now - j.eligible) / MAX_AGE_S)
        return int(W_AGE * age + W_FAIRSHARE * fairshare[j.account] +
                   W_PARTITION * PARTITIONS[j.partition]["factor"] / 4)

    # Slurm computes priorities every PriorityCalcPeriod (and at submission), not continuously:
    # the queue is kept in that order between recalculations.
    queue = []  # sorted (-priority, eligible, id)

    def enqueue(j, now):
        j.priority = prio(j, now)
        j.key = (-j.priority, j.eligible, j.id)
        bisect.insort(queue, j.key)
        pending[j.id] = j

    def dequeue(j):
        del queue[bisect.bisect_left(queue, j.key)]
        del pending[j.id]

    def recalc(now):
        queue.clear()
        for j in pending.values():
            j.priority = prio(j, now)
            j.key = (-j.priority, j.eligible, j.id)
            queue.append(j.key)
        queue.sort()

    def order(limit):
        return [by_id[k[2]] for k in queue[:limit]]

    def start(j, placement, now):
        j.nodes = sorted(n for n, _ in placement)
        j.sched = now
        j.start = now + rng.uniform(0.5, 2.5)  # launch latency: prolog, slurmstepd
        j.end = j.start + j.run
        j.state = "RUNNING"  # sacct's Priority: the value last computed
        for n, g in placement:
            c.free[n] -= g
            c.holds[n][j.id] = (g, j.sched + j.limit)
        dequeue(j)
        running[j.id] = j
        heapq.heappush(events, (j.end, 0, "end", j.id))

    def main(now):
        for j in order(100):  # default_queue_depth
            p = c.place_now(j.gpus)
            if p is None:
                return
            start(j, p, now)

    def backfill(now):
        # Every job tested that cannot start now gets a reservation at the earliest time its GPUs
        # are free (all jobs assumed to run to their time limit); a job starts now only where no
        # reservation needs the GPUs during its time limit. The reservations of blocked jobs are
        # computed when a later job could start now: before that, none of them is looked at.
        holds = [[(now, max(e, now + 1), g) for g, e in c.holds[n].values()] for n in range(nodes)]

        def fits(n, a, b, want):
            """Whether `want` GPUs of node n are free over [a, b)."""
            hs = holds[n]
            room = GPUS_PER_NODE - want
            for t in [a] + [f for f, _, _ in hs if a < f < b]:
                used = 0
                for f, to, g in hs:
                    if f <= t < to:
                        used += g
                if used > room:
                    return False
            return True

        def reserve(j):
            if j.gpus <= GPUS_PER_NODE:
                best = None
                for n in range(nodes):
                    for t in sorted({now} | {to for _, to, _ in holds[n] if to > now}):
                        if best is not None and t >= best[0]:
                            break
                        if fits(n, t, t + j.limit, j.gpus):
                            best = (t, n)
                            break
                if best and best[0] <= now + BF_WINDOW_S:
                    holds[best[1]].append((best[0], best[0] + j.limit, j.gpus))
                return
            k = -(-j.gpus // GPUS_PER_NODE)
            starts = []  # (from, to, node): the node is wholly free for the time limit from any t in [from, to]
            for n in range(nodes):
                free_from = now
                for f, to, _ in sorted((max(f, now), to, g) for f, to, g in holds[n] if to > now):
                    if f - free_from >= j.limit:
                        starts.append((free_from, f - j.limit, n))
                    free_from = max(free_from, to)
                starts.append((free_from, math.inf, n))
            for t, _, _ in sorted(starts):
                if t > now + BF_WINDOW_S:
                    return
                ok = sorted(n for a, b, n in starts if a <= t <= b)
                if len(ok) >= k:
                    for n in ok[:k]:
                        holds[n].append((t, t + j.limit, GPUS_PER_NODE))
                    return

        # Holds only take GPUs away: a job that cannot start on the holds made so far cannot with
        # more, nor can one asking at least as many GPUs for at least as long (same result, fewer
        # reservations computed).
        blocked, failed = [], []
        for j in order(BF_MAX_JOB_TEST):
            if sum(c.free) == 0:
                return
            wide = j.gpus > GPUS_PER_NODE
            if (c.place_now(j.gpus) is None
                    or any(j.gpus >= g and j.limit >= l and wide == w for g, l, w in failed)
                    or c.place_now(j.gpus, ok=lambda n, g: fits(n, now, now + j.limit, g)) is None):
                if c.place_now(j.gpus) is not None:
                    failed.append((j.gpus, j.limit, wide))
                blocked.append(j)
                continue
            for b in blocked:
                reserve(b)
            blocked = []
            p = c.place_now(j.gpus, ok=lambda n, g: fits(n, now, now + j.limit, g))
            if p is None:
                failed.append((j.gpus, j.limit, wide))
                blocked.append(j)
                continue
            start(j, p, now)
            for n, g in p:
                holds[n].append((now, now + j.limit, g))

    t, ended, wall = 0.0, 0, time.time()
    while events:
        t, _, kind, jid = heapq.heappop(events)
        j = by_id.get(jid)
        if kind == "end":
            for n in j.nodes:
                g, _ = c.holds[n].pop(j.id)
                c.free[n] += g
            del running[j.id]
            ended += 1
            if ended % 5000 == 0:
                print(f"  {ended} jobs ended, day {t / 86400:.1f}, {len(pending)} pending, {time.time() - wall:.0f} s",
                      file=sys.stderr, flush=True)
            j.state = "TIMEOUT" if j.run >= j.limit else ("FAILED" if j.id % 37 == 0 else "COMPLETED")
            for ch in children.get(j.id, []):
                if ch.state == "WAITING":
                    ch.eligible = max(ch.submit, j.end)
                    ch.state = "PENDING"
                    enqueue(ch, t)
        elif kind == "submit":
            if j.parent is not None and j.parent.state in ("PENDING", "WAITING", "RUNNING"):
                j.state = "WAITING"  # held by its dependency until the parent ends
            else:
                if j.parent is not None and j.parent.end is not None:
                    j.eligible = max(j.submit, j.parent.end)
                enqueue(j, t)
            if j.cancel_at is not None:
                heapq.heappush(events, (j.cancel_at, 2, "cancel", j.id))
        elif kind == "cancel":
            if j.id in pending:
                dequeue(j)
                j.state = "CANCELLED"
                for ch in children.get(j.id, []):  # afterany: a cancelled parent releases its children
                    if ch.state == "WAITING":
                        ch.eligible = max(ch.submit, t)
                        ch.state = "PENDING"
                        enqueue(ch, t)
            continue
        elif kind == "tick":
            pass
        if events and events[0][0] == t:
            continue  # schedule once per instant, after all its events
        while t - last_calc >= CALC_PERIOD_S:  # PriorityCalcPeriod: decay, running usage, fair share
            last_calc += CALC_PERIOD_S
            decay = 0.5 ** (CALC_PERIOD_S / DECAY_HALF_LIFE_S)
            usage = [u * decay for u in usage]
            for r in running.values():
                usage[r.account] += r.gpus * CALC_PERIOD_S
            total = sum(usage) or 1.0
            fairshare = [2 ** (-(u / total) / s) for u, s in zip(usage, share)]
            recalc(t)
        if not pending:
            continue
        if kind != "tick" or t >= next_main:
            main(t)
            next_main = t + SCHED_INTERVAL_S
        if pending and t >= next_bf and sum(c.free) > 0:
            backfill(t)
            next_bf = t + BF_INTERVAL_S
        if pending and next_tick <= t:
            next_tick = max(next_bf, t + 1)
            heapq.heappush(events, (next_tick, 3, "tick", None))
    return t


def write(jobs, nodes, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "slurm.conf"), "w") as f:
        f.write(SLURM_CONF.format(nodes=nodes))
    with open(os.path.join(out, "topology.conf"), "w") as f:
        f.write("# topology.conf of the generated cluster (tools/gen_slurm_history.py): leaves of 16 nodes\n")
        leaves = []
        for l in range(0, nodes, NODES_PER_LEAF):
            name = f"leaf{l // NODES_PER_LEAF}"
            leaves.append(name)
            f.write(f"SwitchName={name} Nodes=gpu[{l + 1:03d}-{min(nodes, l + NODES_PER_LEAF):03d}]\n")
        f.write(f"SwitchName=spine Switches={','.join(leaves)}\n")
    fields = ("JobID|JobName|User|Account|Partition|QOS|Priority|Submit|Eligible|Start|End|Elapsed|State|"
              "AllocTRES|ReqTRES|NodeList|NNodes|Timelimit")
    waits = []
    with open(os.path.join(out, "history.txt"), "w") as f:
        f.write(fields + "\n")
        for j in jobs:
            req = f"billing={j.gpus * 28},cpu={j.gpus * 28},gres/gpu={j.gpus},mem={j.gpus * 250}G,node={-(-j.gpus // 8)}"
            common = [str(j.id), f"train-{j.id % 97}", j.user, ACCOUNTS[j.account], j.partition, "normal"]
            if j.start is None:
                f.write("|".join(common + [str(0), stamp(j.submit), stamp(j.eligible), "None", stamp(j.cancel_at),
                                           "00:00:00", "CANCELLED by 0", "", req, "None assigned", "1",
                                           hms(j.limit)]) + "\n")
                continue
            waits.append(j.start - j.eligible)
            nl = node_list(j.nodes)
            row = common + [str(j.priority), stamp(j.submit), stamp(j.eligible), stamp(j.start), stamp(j.end),
                            hms(j.end - j.start), j.state, req, req, nl, str(len(j.nodes)), hms(j.limit)]
            f.write("|".join(row) + "\n")
            if j.id % 10 == 0:  # job steps, as sacct without -X prints them
                for step in ("batch", "extern"):
                    f.write("|".join([f"{j.id}.{step}", step, "", ACCOUNTS[j.account], "", "", "", stamp(j.start),
                                      stamp(j.start), stamp(j.start), stamp(j.end), hms(j.end - j.start), "COMPLETED",
                                      req, "", nl, str(len(j.nodes)), ""]) + "\n")
    return waits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=50000)
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    jobs = workload(a.jobs, a.nodes, rng)
    end = simulate(jobs, a.nodes, rng)
    # stamps are whole seconds: round the start and end as sacct does
    waits = write(jobs, a.nodes, a.out)
    waits.sort()
    mean = sum(waits) / len(waits)
    p99 = waits[min(len(waits) - 1, int(0.99 * (len(waits) - 1)))]
    print(f"{len(jobs)} jobs on {a.nodes} nodes over {end / 86400:.1f} days; recorded wait mean {mean:.0f} s, "
          f"p99 {p99:.0f} s ({len(waits)} started)")


if __name__ == "__main__":
    main()
