#!/usr/bin/env bash
# A throw-away single-node SLURM cluster on this machine, for the cluster test.
#
#   tests/cluster/slurm_local.sh start    # install if missing, configure, start, wait until idle
#   tests/cluster/slurm_local.sh stop     # stop the daemons this script started (by pid)
#   tests/cluster/slurm_local.sh status   # sinfo of the running cluster
#   tests/cluster/slurm_local.sh env      # print `export SLURM_CONF=...` for sbatch/squeue/sinfo
#
# Everything lives in one state folder ($SCIEVALS_SLURM_DIR, default /tmp/scievals-slurm):
# slurm.conf, a private munge key and socket, spool and state dirs, logs and the pid files of
# the daemons started here. The one file outside it is a symlink /etc/slurm/slurm.conf -> the
# state folder's slurm.conf: `srun` inside a job (snakemake's jobstep executor) drops SLURM_*
# variables, SLURM_CONF included, so it only finds the cluster at the standard path. A real
# /etc/slurm/slurm.conf (not our symlink) is never overwritten: start refuses instead.
# Needs root (apt-get, daemons).
# Debian 12 ships Slurm 22.05; no systemd is assumed, the daemons run in the foreground
# (-D / --foreground) in the background of this shell and their pids are recorded.
set -euo pipefail

STATE_DIR="${SCIEVALS_SLURM_DIR:-/tmp/scievals-slurm}"
CONF="$STATE_DIR/slurm.conf"
SYSTEM_CONF=/etc/slurm/slurm.conf
# Two partitions on the one node: the default `batch`, where the unmodified profile's jobs
# land, and `scievals_site` (a name no profile uses), where jobs land only if a site layer's
# slurm_partition reaches sbatch.
PARTITION="${SCIEVALS_SLURM_PARTITION:-scievals_site}"
DEFAULT_PARTITION="${SCIEVALS_SLURM_DEFAULT_PARTITION:-batch}"
# Ports away from the 6817/6818 defaults so a real slurm on the host cannot clash.
CTLD_PORT="${SCIEVALS_SLURM_CTLD_PORT:-16817}"
SLURMD_PORT="${SCIEVALS_SLURM_SLURMD_PORT:-16818}"
START_TIMEOUT_S="${SCIEVALS_SLURM_START_TIMEOUT_S:-90}"
DAEMONS=(slurmd slurmctld munged)   # stop order: compute node, controller, auth

log() { printf '[slurm_local] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need_root() {
    [[ "$(id -u)" == 0 ]] || die "must run as root (it installs packages and starts daemons)"
}

install_packages() {
    local missing=()
    command -v slurmctld >/dev/null || missing+=(slurmctld)
    command -v slurmd >/dev/null || missing+=(slurmd)
    command -v sbatch >/dev/null || missing+=(slurm-client)
    command -v munged >/dev/null || missing+=(munge)
    if ((${#missing[@]})); then
        log "installing ${missing[*]} (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >"$STATE_DIR/apt-update.log" 2>&1 \
            || die "apt-get update failed, see $STATE_DIR/apt-update.log"
        apt-get install -y -q --no-install-recommends "${missing[@]}" \
            >"$STATE_DIR/apt-install.log" 2>&1 \
            || die "apt-get install ${missing[*]} failed, see $STATE_DIR/apt-install.log"
    fi
}

pid_of() {  # prints the recorded pid of daemon $1 if that process is still alive
    local file="$STATE_DIR/$1.pid" pid
    [[ -f "$file" ]] || return 1
    pid="$(<"$file")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
    # Guard against pid reuse: the process must still be that daemon.
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$1" ]] || return 1
    printf '%s\n' "$pid"
}

stop_daemons() {
    local name pid i
    for name in "${DAEMONS[@]}"; do
        if pid="$(pid_of "$name")"; then
            log "stopping $name (pid $pid)"
            kill -TERM "$pid" 2>/dev/null || true
            for i in $(seq 1 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.2
            done
            if kill -0 "$pid" 2>/dev/null; then
                log "$name (pid $pid) ignored SIGTERM for 10 s, sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
        rm -f "$STATE_DIR/$name.pid"
    done
}

write_config() {
    local host node_line cpus boards sockets cores threads mem_total real_mem
    host="$(hostname -s)"
    # `slurmd -C` prints this machine's own node line (CPUs, sockets, cores, threads, memory);
    # declaring exactly that keeps slurmd from draining the node for a topology mismatch.
    node_line="$(slurmd -C | head -n1)"
    field() { sed -n "s/.*[[:space:]]$1=\([0-9]*\).*/\1/p" <<<"$node_line"; }
    cpus="$(field CPUs)"; boards="$(field Boards)"; sockets="$(field SocketsPerBoard)"
    cores="$(field CoresPerSocket)"; threads="$(field ThreadsPerCore)"
    mem_total="$(field RealMemory)"
    [[ -n "$cpus" && -n "$mem_total" ]] || die "could not parse 'slurmd -C': $node_line"
    # Offer jobs half the memory (other work shares this machine); the scheduler only counts
    # what jobs request, it does not enforce limits here (task/none, no cgroups).
    real_mem=$((mem_total / 2))

    cat >"$CONF" <<EOF
# Written by tests/cluster/slurm_local.sh for a single-node test cluster on $host.
ClusterName=scievals
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$STATE_DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$STATE_DIR/ctld-state
SlurmdSpoolDir=$STATE_DIR/slurmd-spool
SlurmctldPidFile=$STATE_DIR/slurmctld.daemon.pid
SlurmdPidFile=$STATE_DIR/slurmd.daemon.pid
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes are tracked through /proc, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
# No accounting database: status comes from squeue (snakemake --slurm-status-command squeue).
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# Keep finished jobs visible to squeue for 5 minutes, so their final state is read.
MinJobAge=300
# Share the node among jobs by cores and memory.
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Boards=${boards:-1} SocketsPerBoard=${sockets:-1} CoresPerSocket=${cores:-$cpus} ThreadsPerCore=${threads:-1} RealMemory=$real_mem State=UNKNOWN
PartitionName=$DEFAULT_PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=$PARTITION Nodes=$host Default=NO MaxTime=INFINITE State=UP
EOF
    : >"$STATE_DIR/cgroup.conf"   # read by slurmd even with proctrack/linuxproc
    link_system_conf
}

link_system_conf() {
    if [[ -e "$SYSTEM_CONF" || -L "$SYSTEM_CONF" ]]; then
        [[ "$(readlink "$SYSTEM_CONF" 2>/dev/null)" == "$CONF" ]] && return 0
        die "$SYSTEM_CONF exists and is not this test's; refusing to replace a site's SLURM config"
    fi
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -s "$CONF" "$SYSTEM_CONF"
}

unlink_system_conf() {
    if [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; then
        rm -f "$SYSTEM_CONF"
    fi
}

start_munge() {
    local key="$STATE_DIR/munge/munge.key"
    mkdir -p "$STATE_DIR/munge"
    chmod 0755 "$STATE_DIR/munge"   # clients of every uid must reach the socket
    if [[ ! -s "$key" ]]; then
        mungekey --create --keyfile="$key" 2>/dev/null \
            || dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
        chmod 0400 "$key"
    fi
    # --force: munged refuses a socket folder below world-writable /tmp otherwise.
    munged --foreground --force \
        --socket="$STATE_DIR/munge/munge.socket" \
        --key-file="$key" \
        --pid-file="$STATE_DIR/munge/munged.daemon.pid" \
        --seed-file="$STATE_DIR/munge/munged.seed" \
        >>"$STATE_DIR/munged.log" 2>&1 &
    echo $! >"$STATE_DIR/munged.pid"
    wait_exec munged
    local i
    for i in $(seq 1 50); do
        if munge -n -S "$STATE_DIR/munge/munge.socket" 2>/dev/null \
            | unmunge -S "$STATE_DIR/munge/munge.socket" >/dev/null 2>&1; then
            return 0
        fi
        pid_of munged >/dev/null || break
        sleep 0.2
    done
    die "munged did not come up; see $STATE_DIR/munged.log"
}

wait_idle() {
    local deadline=$((SECONDS + START_TIMEOUT_S)) state=""
    while ((SECONDS < deadline)); do
        pid_of slurmctld >/dev/null || die "slurmctld exited; see $STATE_DIR/slurmctld.log"
        pid_of slurmd >/dev/null || die "slurmd exited; see $STATE_DIR/slurmd.log"
        state="$(SLURM_CONF="$CONF" sinfo --noheader --partition="$PARTITION" -o '%t' 2>/dev/null \
            | head -n1 || true)"
        [[ "$state" == "idle" ]] && return 0
        # A node left drained by an earlier run comes back with an explicit resume.
        if [[ "$state" == drain* || "$state" == "down"* ]]; then
            SLURM_CONF="$CONF" scontrol update nodename="$(hostname -s)" state=resume \
                >/dev/null 2>&1 || true
        fi
        sleep 1
    done
    die "node not idle after ${START_TIMEOUT_S}s (last sinfo state: '${state:-none}'); see $STATE_DIR/*.log"
}

wait_exec() {  # a daemon started with `cmd &` is a bash subshell until it execs: wait for that
    local name=$1 pid i
    pid="$(<"$STATE_DIR/$name.pid")"
    for ((i = 0; i < 100; i++)); do
        [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]] && return 0
        kill -0 "$pid" 2>/dev/null || die "$name exited; see $STATE_DIR/$name.log"
        sleep 0.1
    done
    die "$name did not start within 10 s; see $STATE_DIR/$name.log"
}

cmd_start() {
    need_root
    mkdir -p "$STATE_DIR"
    # Daemons left behind by an earlier, killed run of this script are ours: stop them first.
    stop_daemons
    install_packages
    rm -rf "$STATE_DIR/ctld-state" "$STATE_DIR/slurmd-spool" "$STATE_DIR"/*.log "$STATE_DIR"/*.out
    mkdir -p "$STATE_DIR/ctld-state" "$STATE_DIR/slurmd-spool"
    write_config
    start_munge
    slurmctld -D -f "$CONF" >>"$STATE_DIR/slurmctld.log" 2>&1 &
    echo $! >"$STATE_DIR/slurmctld.pid"
    slurmd -D -f "$CONF" >>"$STATE_DIR/slurmd.log" 2>&1 &
    echo $! >"$STATE_DIR/slurmd.pid"
    wait_exec slurmctld
    wait_exec slurmd
    wait_idle
    log "cluster up: partitions '$DEFAULT_PARTITION' (default) and '$PARTITION' on $(hostname -s), idle"
}

cmd_stop() {
    need_root
    [[ -d "$STATE_DIR" ]] || return 0
    stop_daemons
    unlink_system_conf
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) SLURM_CONF="$CONF" sinfo ;;
    env) printf 'export SLURM_CONF=%q\n' "$CONF" ;;
    *) die "usage: $0 start|stop|status|env" ;;
esac
