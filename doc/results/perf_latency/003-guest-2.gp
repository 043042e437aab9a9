set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/003-guest-2.svg"
set title "003 (guest): guest rx frames per MB" noenhanced
set xlabel "variant" noenhanced
set ylabel "guest rx frames/MB" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("GRO off" 0, "GRO light" 1, "GRO heavy (vfwd engine)" 2, "GRO heavy (librte_gro)" 3, "testpmd-csum-gro" 4)
set xrange [-0.5:4.5]
plot "/tmp/perf_lat/003-guest-2.dat" index 0 using 1:2:3:4 with yerrorlines title "workload=tcp-in 1", "/tmp/perf_lat/003-guest-2.dat" index 1 using 1:2:3:4 with yerrorlines title "workload=tcp-in 4", "/tmp/perf_lat/003-guest-2.dat" index 2 using 1:2:3:4 with yerrorlines title "workload=rr 1 under tcp-in 1 100M"
