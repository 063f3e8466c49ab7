#!/usr/bin/env bash
# Writes the seed corpus of nsys_sqlite_fuzz (fuzz/corpus/nsys_sqlite/*.sqlite): small Nsight
# Systems SQLite exports in the schema of `nsys export --type sqlite` (the tables and columns
# docs/nsight.md lists), with 512-byte pages so that each seed is a few KB. Needs the sqlite3
# command (Debian: sqlite3). Run from the repository root; the files are committed.
set -euo pipefail
out=fuzz/corpus/nsys_sqlite
mkdir -p "$out"

schema='
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER, mangledName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,
  copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER,
  bytes INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
  globalTid INTEGER, textId INTEGER);
'
# Serialized GlobalIds: PID 100 in bits 24..47 (100 << 24 = 1677721600), TID in the low 24 bits.
pid=1677721600
tid=$((pid + 101))

make() {
  rm -f "$out/$1.sqlite"
  sqlite3 "$out/$1.sqlite" "PRAGMA page_size = 512; $2 VACUUM;"
}

# Two GPUs driven by one process: GEMMs, an all-reduce, a memcpy, a memset, their launches, a
# sync that launched nothing, ProfilerStep ranges (text and textId), a mark and an open range.
make two_devices "$schema
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float const*, float*)'), (2, 'gemm_kernel'),
  (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'), (4, 'cudaLaunchKernel_v7000'),
  (5, 'cudaMemcpyAsync_v3020'), (6, 'ProfilerStep#2'), (7, 'cudaStreamSynchronize_v3020');
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3'), (1, 'NVIDIA H200');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1500, 0, 1, 7, 10, $pid, 1, 2, NULL),
  (1200, 2200, 0, 1, 13, 11, $pid, 3, 3, NULL), (1100, 1700, 1, 2, 7, 20, $pid, 1, 2, NULL),
  (1300, 2300, 1, 2, 13, 21, $pid, 3, 3, NULL), (5000, 5400, 0, 1, 7, 30, $pid, 1, 2, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2500, 2600, 0, 1, 7, 12, $pid, 4096, 1, 1, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (2700, 2750, 1, 2, 7, 22, $pid, 0, 1024, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 1, $tid, 10, 4), (960, 990, 1, $tid, 11, 4),
  (2400, 2450, 1, $tid, 12, 5), (1050, 1090, 1, $tid, 20, 4), (1095, 1099, 1, $tid, 21, 4),
  (4900, 4950, 1, $tid, 30, 4), (3000, 3100, 1, $tid, 40, 7);
INSERT INTO NVTX_EVENTS VALUES (800, 3200, 59, 'ProfilerStep#1', $tid, NULL), (3300, 6000, 59, NULL, $tid, 6),
  (810, 900, 60, 'enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__', $tid, NULL),
  (850, NULL, 34, 'a mark', $tid, NULL), (6100, NULL, 59, 'still open', $tid, NULL);"

# One GPU, no process columns (an older export), shortName only.
make older_layout "
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, correlationId INTEGER,
  nameId INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_nn'), (2, 'cudaLaunchKernel_v7000');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 300, 0, 7, 1, 1), (400, 500, 0, 7, 2, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 90, 1, 2), (350, 390, 2, 2);"

# Unusable rows beside usable ones: text and reals in integer columns, end before start, NULLs,
# a name id missing from StringIds, values at the 64-bit edge.
make bad_rows "$schema
INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 1, 7, 1, $pid, 1, 1, NULL),
  ('abc', 300, 0, 1, 7, 2, $pid, 1, 1, NULL), (300, 250, 0, 1, 7, 3, $pid, 1, 1, NULL),
  (400, 500, -1, 1, 7, 4, $pid, 1, 1, NULL), (400, 500, 0, 1, 1e400, 5, $pid, 1, 1, NULL),
  (600, 9223372036854775807, 0, 1, 7, 6, $pid, 1, 1, NULL), (700, 800, 0, 1, 7, 7, $pid, 99, 98, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 80, 1, $tid, 1, 2), (95, 99, 1, 'tid', 1, 2);
INSERT INTO NVTX_EVENTS VALUES (50, 40, 59, 'backwards', $tid, NULL), (60, 70, 'range', 'x', $tid, NULL);"
ls -l "$out"
