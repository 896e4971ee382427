#!/bin/sh
# mpi_heat.sh: the MPI heat example's figures (docs/tutorial-mpi.md, docs/performance.md): for each rank count and
# halo mode, the per-step kernel time, halo exchange time, wait for the other ranks and whole step, each the median of REPEATS runs of
# examples/mpi_heat (each run's figures are the medians over its steps, of its slowest rank). Every run also checks
# itself against one rank, bit for bit; a run that fails stops the script.
#   sh bench/mpi_heat.sh [--bin PATH] [--ranks "1 2 4"] [--halo "auto staged"] [--size W H] [--steps N]
#                        [--repeats R] [--out DIR] [--mpirun "mpirun ..."]
# Writes DIR/mpi_heat.md (the table, also on stdout) and DIR/mpi_heat.csv. Environment as for the example
# (KRT_DEVICE, ZE_ENABLE_ALT_DRIVERS, KRT_KERNELS). mpirun binds as Open MPI does by default: each rank to a core
# when there are no more ranks than cores, none when oversubscribed (docs/performance.md, section 10, compares
# --bind-to none).
set -eu
bin=build/bin/mpi_heat
ranks="1 2 4"
halos="auto staged"
w=1024
h=1024
steps=200
repeats=3
out=build/bench
mpirun="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && mpirun="$mpirun --allow-run-as-root"
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --halo) halos=$2; shift 2 ;;
    --size) w=$2; h=$3; shift 3 ;;
    --steps) steps=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    *) echo "mpi_heat.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$out/mpi_heat.csv
md=$out/mpi_heat.md
echo "ranks,halo,kernel_us,halo_us,wait_us,step_us" >"$csv"
device=""
for halo in $halos; do
    for p in $ranks; do
        : >"$tmp/runs"
        for r in $(seq "$repeats"); do
            $mpirun -np "$p" "$bin" --halo="$halo" "$w" "$h" "$steps" >"$tmp/run" 2>&1 || {
                cat "$tmp/run"; echo "mpi_heat.sh: $p ranks, --halo=$halo failed" >&2; exit 1; }
            [ -n "$device" ] || device=$(sed -n 's/^rank 0 ([^)]*): \(.*\), halo .*/\1/p' "$tmp/run")
            mode=$(sed -n 's/^rank 0 ([^)]*): .*, halo \([a-z]*\) .*/\1/p' "$tmp/run")
            # "per step (median, slowest rank): kernel K us, halo exchange H us (N% of the kernel), wait for the
            # other ranks W us; whole step S us (mean M us)"
            sed -n 's/^per step.*kernel \([0-9.]*\) us, halo exchange \([0-9.]*\) us.*ranks \([0-9.]*\) us; whole step \([0-9.]*\) us.*/\4 \1 \2 \3/p' \
                "$tmp/run" >>"$tmp/runs"
        done
        # The run with the median whole-step time.
        set -- $(sort -n "$tmp/runs" | sed -n "$(( (repeats + 1) / 2 ))p")
        echo "$p,$mode,$2,$3,$4,$1" >>"$csv"
    done
done
{
    echo "mpi_heat: $w x $h plate, $steps steps, median of $repeats runs; $device"
    echo
    echo "| ranks | halo | kernel (us) | halo exchange (us) | halo / kernel | wait (us) | step (us) | speed-up over 1 rank |"
    echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    awk -F, 'NR > 1 { if ($1 == 1) one[$2] = $6
                      printf "| %d | %s | %.1f | %.1f | %.0f%% | %.1f | %.1f | %s |\n", $1, $2, $3, $4, 100 * $4 / $3, $5,
                             $6, ($2 in one) ? sprintf("%.2f", one[$2] / $6) : "" }' "$csv"
} | tee "$md"
