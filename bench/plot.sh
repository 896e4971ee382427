#!/bin/sh
# Draws the PNG plots of the benchmarks from their CSV files with gnuplot. Usage: sh bench/plot.sh DIR
# A CSV that is missing (its benchmark did not run) is skipped.
set -e
dir=${1:-build/bench}
command -v gnuplot >/dev/null 2>&1 || { echo "plot.sh: gnuplot not found, no plots" >&2; exit 0; }
common='set terminal png size 900,520 font ",10" noenhanced; set datafile separator ",";
set key top left; set grid ytics;'

if [ -f "$dir/launch_overhead.csv" ]; then
gnuplot <<GP
$common
set output "$dir/launch_overhead.png"
set multiplot layout 1,2 title "launch_overhead: kernel k4 (4 arguments), range 1024"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "ns per launch"
set xlabel "(a) raw L0  (b) krt static  (c) krt dynamic  (d) krt NO_MEMO  (e) raw OpenCL"
set yrange [0:*]
plot "$dir/launch_overhead.csv" skip 1 using 4:xtic(1) title "host (launch calls)", \\
     '' skip 1 using 3 title "wall (with sync)"
set ylabel "instructions per launch (callgrind)"
unset key
plot "$dir/launch_overhead.csv" skip 1 using 7:xtic(1) title "instructions" lc rgb "#4060a0"
unset multiplot
GP
fi

if [ -f "$dir/groupsize.csv" ]; then
gnuplot <<GP
$common
set output "$dir/groupsize.png"
set title "groupsize: krt's choice / best swept group size (goal: at most 1.10)"
set style data histograms
set style fill solid 0.8 border -1
set xtics rotate by -45 font ",8"
set ylabel "time ratio (log scale)"
set logscale y
set yrange [0.8:*]
set bmargin 9
plot "$dir/groupsize.csv" skip 1 using 8:xtic(stringcolumn(1)."  ".stringcolumn(2)) \\
     title "krt / best" lc rgb "#4060a0", \
     1.10 with lines dt 2 lw 2 lc rgb "red" title "goal 1.10"
GP
fi

if [ -f "$dir/module_load.csv" ]; then
gnuplot <<GP
$common
set output "$dir/module_load.png"
set title "module_load: 10-kernel module, load + 10 kernels resolved (median)"
set style data histograms
set style fill solid 0.8 border -1
set logscale y
set ylabel "ms (log scale)"
set xtics font ",8"
plot "$dir/module_load.csv" skip 1 using 4:xtic(1) title "load ms" lc rgb "#4060a0"
GP
fi

if [ -f "$dir/scaling.csv" ]; then
gnuplot <<GP
$common
set output "$dir/scaling.png"
set multiplot layout 1,2 title "scaling: warm krt_launch, dynamic group size"
set key center right
set ylabel "instructions per launch (callgrind)"
set yrange [0:*]
set xlabel "kernel arguments"
set xtics (1, 4, 16)
plot "< grep ',arguments,' $dir/scaling.csv" using 4:7 with linespoints lw 2 pt 7 title "whole launch", \\
     "< grep ',arguments,' $dir/scaling.csv" using 4:8 with linespoints lw 2 pt 5 title "krt's own share"
set xlabel "distinct ndranges cached (log scale)"
set logscale x
set xtics (1, 10, 1000)
set xrange [0.7:1500]
plot "< grep ',ndranges,' $dir/scaling.csv" using 4:7 with linespoints lw 2 pt 7 title "whole launch", \\
     "< grep ',ndranges,' $dir/scaling.csv" using 4:8 with linespoints lw 2 pt 5 title "krt's own share"
unset multiplot
GP
fi
if [ -f "$dir/mpi_heat.csv" ]; then
gnuplot <<GP
$common
set output "$dir/mpi_heat.png"
set title "mpi_heat: per step, each the median over the steps of the slowest rank (ranks, halo path)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "us"
set yrange [0:*]
set key top left
plot "$dir/mpi_heat.csv" skip 1 using 3:xtic(sprintf("%d %s", column(1), strcol(2))) title "kernel" lc rgb "#4060a0", \\
     '' skip 1 using 4 title "halo exchange" lc rgb "#c04040", \\
     '' skip 1 using 5 title "wait for the other ranks" lc rgb "#a0a0a0", \\
     '' skip 1 using 6 title "whole step" lc rgb "#303030"
GP
fi
echo "plot.sh: plots written to $dir"
