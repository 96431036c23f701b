#!/usr/bin/env bash
# The workflow on a real single-node SLURM cluster, compared with a local run.
#
#   sudo bash tests/cluster/run_slurm_test.sh       (as root; .ci/run calls it; ~3.5 minutes)
#
# 1. copies the checkout (tracked and untracked, not ignored, files) twice into a temp dir;
# 2. runs `snakemake --cores 2 results/summary.csv` in the first copy (local reference);
# 3. starts munged, slurmctld and slurmd (tests/cluster/slurm_local.sh: installs Debian's
#    slurm packages if missing, writes slurm.conf for this host, waits until the node is idle);
# 4. runs `snakemake --profile profiles/slurm results/summary.csv`, the profile unmodified,
#    in the second copy, and checks every non-local job ran inside a SLURM job (sbatch),
#    every SLURM job COMPLETED in the cluster's default partition, and summary.csv equals the
#    local one (check_slurm_run.py);
# 5. re-runs abdev's scoring jobs there with a site layer (profiles/site.example with the
#    partition `scievals_site`, given as --workflow-profile) and checks they and the jobs
#    after them ran in it (one benchmark is enough: the layer sets default resources, which
#    every rule reads alike);
# 6. stops the daemons it started, by pid, also on failure or Ctrl-C.
# KEEP_TMP=1 keeps the temp dir for inspection. PYTHON selects the interpreter (default python3).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
DEFAULT_PARTITION=batch        # the test cluster's default (tests/cluster/slurm_local.sh)
SITE_PARTITION=scievals_site   # its second partition, named only by the site layer
START=$SECONDS

[[ "$(id -u)" == 0 ]] || { echo "run_slurm_test: must run as root" >&2; exit 1; }

TMP="$(mktemp -d /tmp/scievals-slurm-test.XXXXXX)"
cleanup() {
    local rc=$?
    "$HERE/slurm_local.sh" stop || true
    if [[ "${KEEP_TMP:-0}" == 1 || $rc != 0 ]]; then
        echo "run_slurm_test: files kept in $TMP" >&2
    else
        rm -rf "$TMP"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

copy_checkout() {
    mkdir -p "$1"
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) \
        | (cd "$ROOT" && xargs -0 -r tar --no-recursion -cf - 2>/dev/null) \
        | tar -xf - -C "$1"
}

# Same provenance in both runs, so the whole summary (provenance columns too) must agree.
export SCIEVALS_GIT_COMMIT="slurm-test"

echo "== local reference run"
copy_checkout "$TMP/local"
(cd "$TMP/local" && "$PYTHON" -m snakemake --cores 2 results/summary.csv >"$TMP/local.log" 2>&1) \
    || { tail -n 40 "$TMP/local.log"; echo "run_slurm_test: local run failed" >&2; exit 1; }
LOCAL_DONE=$SECONDS

echo "== starting the SLURM cluster"
"$HERE/slurm_local.sh" start
CLUSTER_UP=$SECONDS

# Test-only flags: keep the SLURM logs of successful jobs (the check reads them), surface
# failures instead of retrying, and poll SLURM sooner than the profile's 10 s.
TEST_FLAGS=(--slurm-keep-successful-logs --retries 0 --slurm-init-seconds-before-status-checks 2)
slurm_run() {  # slurm_run NAME SNAKEMAKE-ARGS... (the test flags go first: ARGS may end in "-- targets")
    local name=$1; shift
    (cd "$TMP/slurm" && "$PYTHON" -m snakemake "${TEST_FLAGS[@]}" "$@" >"$TMP/$name.log" 2>&1) \
        || { tail -n 60 "$TMP/$name.log"; echo "run_slurm_test: $name run failed" >&2; exit 1; }
}
check_run() {  # check_run PARTITION: the newest snakemake run in the SLURM copy
    "$PYTHON" "$HERE/check_slurm_run.py" --workdir "$TMP/slurm" \
        --local-summary "$TMP/local/results/summary.csv" --partition "$1"
}

echo "== snakemake --profile profiles/slurm results/summary.csv (the profile unmodified)"
copy_checkout "$TMP/slurm"
grep -q slurm_partition "$TMP/slurm/profiles/slurm/config.yaml" \
    && { echo "run_slurm_test: profiles/slurm names a partition; site values belong in a site layer" >&2; exit 1; }
slurm_run slurm --profile profiles/slurm results/summary.csv
echo "== checks: every job in the cluster's default partition '$DEFAULT_PARTITION'"
check_run "$DEFAULT_PARTITION"
SLURM_DONE=$SECONDS

echo "== the site layer: --workflow-profile with slurm_partition: $SITE_PARTITION"
mkdir -p "$TMP/site"
sed "s/^  # slurm_partition: .*/  slurm_partition: $SITE_PARTITION/" \
    "$TMP/slurm/profiles/site.example/config.yaml" >"$TMP/site/config.yaml"
grep -q "slurm_partition: $SITE_PARTITION" "$TMP/site/config.yaml"
slurm_run site --profile profiles/slurm --workflow-profile "$TMP/site" \
    --forcerun abdev_score -- results/summary.csv
echo "== checks: every re-run job in the site partition '$SITE_PARTITION'"
check_run "$SITE_PARTITION"

echo "run_slurm_test: passed in $((SECONDS - START)) s (local run $((LOCAL_DONE - START)) s," \
     "cluster start $((CLUSTER_UP - LOCAL_DONE)) s, SLURM run $((SLURM_DONE - CLUSTER_UP)) s," \
     "site-layer re-run $((SECONDS - SLURM_DONE)) s)"
