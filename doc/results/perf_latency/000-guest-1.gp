set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/000-guest-1.svg"
set title "000 (guest): forwarder CPU % by workload" noenhanced
set xlabel "workload" noenhanced
set ylabel "CPU %" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("udp-out 20M" 0, "udp-out max" 1, "tcp-out 1" 2, "rr 1" 3, "rr 8" 4, "rr 1 under udp-out 50M" 5, "idle" 6)
set xrange [-0.5:6.5]
plot "/tmp/perf_lat/000-guest-1.dat" index 0 using 1:2:3:4 with yerrorlines title "poll", "/tmp/perf_lat/000-guest-1.dat" index 1 using 1:2:3:4 with yerrorlines title "napi", "/tmp/perf_lat/000-guest-1.dat" index 2 using 1:2:3:4 with yerrorlines title "napi, busy-poll 500 us", "/tmp/perf_lat/000-guest-1.dat" index 3 using 1:2:3:4 with yerrorlines title "testpmd-csum-gro"
