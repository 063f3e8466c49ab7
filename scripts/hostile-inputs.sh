#!/usr/bin/env bash
# Runs every command against hostile inputs (issue 32; docs/files.md): special files (FIFOs,
# devices, link loops), a full device, JSON nested 100,000 deep, duplicate keys, outputs that
# are inputs, and nonsense values. Each case must end within 20 s with the documented status and,
# for bad input, exactly one line on stderr starting "paratune: error: " that holds the expected
# text, and nothing on stdout. Registered as the CTest test `hostile_inputs`.
#
#   scripts/hostile-inputs.sh PATH/TO/paratune
set -u
bin=${1:?usage: scripts/hostile-inputs.sh PATH/TO/paratune}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
cases=0

# bad EXPECTED_TEXT ARGS...: status 2, one "paratune: error:" line holding EXPECTED_TEXT.
bad() {
  local want=$1
  shift
  cases=$((cases + 1))
  timeout -s KILL 20 "$bin" "$@" </dev/null >out.txt 2>err.txt
  local status=$? lines
  lines=$(wc -l <err.txt)
  if [[ $status -ne 2 || $lines -ne 1 || -s out.txt ]] || ! grep -qF -- "paratune: error: " err.txt || ! grep -qF -- "$want" err.txt; then
    echo "FAIL: paratune $* (status $status, $lines stderr lines; want status 2 and '$want')"
    sed 's/^/    stderr: /' err.txt | head -3
    head -c 200 out.txt | sed 's/^/    stdout: /'
    failed=$((failed + 1))
  fi
}

# bad_to TARGET EXPECTED_TEXT ARGS...: as bad, with stdout sent to TARGET.
bad_to() {
  local target=$1 want=$2
  shift 2
  cases=$((cases + 1))
  timeout -s KILL 20 "$bin" "$@" </dev/null >"$target" 2>err.txt
  local status=$?
  if [[ $status -ne 2 ]] || ! grep -qF -- "$want" err.txt; then
    echo "FAIL: paratune $* >$target (status $status; want 2 and '$want')"
    sed 's/^/    stderr: /' err.txt | head -3
    failed=$((failed + 1))
  fi
}

# good ARGS...: status 0 within the time bound.
good() {
  cases=$((cases + 1))
  timeout -s KILL 20 "$bin" "$@" </dev/null >out.txt 2>err.txt
  local status=$?
  if [[ $status -ne 0 ]]; then
    echo "FAIL: paratune $* (status $status; want 0)"
    sed 's/^/    stderr: /' err.txt | head -3
    failed=$((failed + 1))
  fi
}

"$bin" estimate --json >est.json || { echo "FAIL: estimate --json"; exit 1; }
mkfifo in.fifo noreader.fifo
ln -s loop2 loop1
ln -s loop1 loop2
printf 'name,submit_s,gpus,run_s,class\nexp,0,8,100,experimental\n' >jobs.csv
printf 'name,submit_s,gpus,run_s,class\nbig,0,4096,100,experimental\n' >toobig.csv
{ printf '{"schema":"paratune.estimate/1","x":'; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } >deep.json
mkdir -p dup
printf '{"architectures":["LlamaForCausalLM"],"num_hidden_layers":2,"num_hidden_layers":80,"hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32000,"intermediate_size":11008}' >dup/config.json

# Inputs that are not regular files: one line at once, never a hang.
fifo="in.fifo: cannot read: is a FIFO"
bad "$fifo" analyze in.fifo
bad "$fifo" estimate --model in.fifo
bad "$fifo" estimate --hardware in.fifo
bad "$fifo" validate in.fifo
bad "$fifo" calibrate in.fifo
bad "$fifo" diagnose in.fifo
bad "$fifo" report in.fifo --out r.html
bad "$fifo" runs record in.fifo --name x --db runs.db
bad "$fifo" cluster --job-history in.fifo --nodes 1
bad "$fifo" cluster --job-history jobs.csv --topology in.fifo
bad "symbolic link loop" analyze loop1
bad "symbolic link loop" estimate --model loop1
bad "symbolic link loop" diagnose loop1

# Outputs: a FIFO nobody reads, a directory, a dangling link, an input, an empty path, two "-".
bad "noreader.fifo: cannot write: no process is reading this FIFO" report est.json --out noreader.fifo
bad "cannot write: is a directory" report est.json --out .
bad "cannot write: symbolic link loop" report est.json --out loop1
bad "is an input of this command" report est.json --out est.json
bad "is an input of this command" cluster --job-history jobs.csv --nodes 1 --jobs-out jobs.csv
bad "--trace-out: empty file name" simulate --trace-out ''
bad "both name standard output" cluster --job-history jobs.csv --nodes 1 --series - --jobs-out -
good report est.json --out /dev/null
[[ -c /dev/null ]] || { echo "FAIL: /dev/null is no longer a character device"; failed=$((failed + 1)); }

# Write errors on a full device.
bad "/dev/full: cannot write: No space left on device" report est.json --out /dev/full
bad_to /dev/full "standard output: cannot write: No space left on device" estimate
bad_to /dev/full "standard output: cannot write: No space left on device" report est.json --out -

# JSON: nested 100,000 deep, a key twice.
bad "JSON nested deeper than 64 levels" report deep.json --out r.html
bad 'key "num_hidden_layers" appears twice in one object' estimate --model dup/config.json

# Registry locations: a read never creates a store; unknown schemes and empty locations.
bad "no run registry here" runs list --db missing/dir/runs.db
bad "unknown store scheme 'mysql'" runs list --db mysql://user@host/db
bad "--db: empty location" runs list --db ''
[[ -e missing || -e runs.db ]] && { echo "FAIL: a read created a store"; failed=$((failed + 1)); }

# Rows none of which can be used.
bad "every row was skipped (1)" cluster --job-history toobig.csv --nodes 1

# Values that were accepted (issue 32), each refused by name.
trace="$src/testdata/traces/hta/trace_filter"
dims=(--layers 2 --hidden 256 --ffn 512 --heads 4 --vocab 1000)
bad "--checkpoint-interval: 'nan' is not a finite number" cluster --job-history jobs.csv --nodes 1 --checkpoint-interval nan
bad "'fifo' is named twice" cluster --job-history jobs.csv --nodes 1 --policy fifo,fifo
bad "--rank -1: ranks are numbered from 0" analyze "$trace" --rank -1
bad "must be positive, got -4" estimate "${dims[@]}" --kv-heads -4
bad "(2) needs" estimate "${dims[@]}" --topk 2
bad "--tp 8 is above --max-tp 4" plan --tp 8 --max-tp 4 --quiet
bad "does not fit a 64-bit integer" estimate --global-batch 99999999999999999999
bad "--tp is given 2 times; give it once" estimate --tp 2 --tp 4
bad "unknown runs subcommand 'bogus'" runs bogus
bad "a run name must not be blank" runs record est.json --name "  " --db blank.db
bad "--offload-layers" estimate --offload-layers -1
bad "unrecognized option --tensor-model-paralel-size" estimate --from-megatron "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --vocab-size 1000 --tensor-model-paralel-size 8"
good_line=' [2024-05-01 12:00:00] iteration 1/ 9 | elapsed time per iteration (ms): 1000.0 |'
printf '%s\n [2024-13-45 99:99:99] iteration 2/ 9 | elapsed time per iteration (ms): 1 |\n' "$good_line" >badtime.log
bad "'2024-13-45 99:99:99' is not a date and time" diagnose badtime.log
printf '%s\n iteration 2/ 9 | elapsed time per iteration (ms): 0 |\n' "$good_line" >zero.log
bad "is not an iteration time" diagnose zero.log
printf 'iteration,layer,expert,tokens\n1,0,0,0\n1,0,1,0\n' >zero_tokens.csv
bad "routed no token to any expert" diagnose zero_tokens.csv
printf '\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV4\t0-7\t0\nGPU1\tSYS\t X \t0-7\t0\n' >asym.txt
bad "the matrix is not symmetric" diagnose asym.txt
printf '{"schema":"paratune.estimate/1","x":NaN}' >nan.json
bad "not valid JSON" runs record nan.json --db nan.db
bad "given twice" diagnose asym.txt ./asym.txt
[[ -e blank.db || -e nan.db ]] && { echo "FAIL: a refused record created a store"; failed=$((failed + 1)); }

echo "hostile inputs: $cases cases, $failed failed"
[[ $failed -eq 0 ]]
