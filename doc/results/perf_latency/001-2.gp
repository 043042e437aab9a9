set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/001-2.svg"
set title "001: round trip (one request in flight)" noenhanced
set xlabel "variant" noenhanced
set ylabel "round trip, us" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("tx-batch 1, burst 32" 0, "tx-batch 1, burst 8" 1, "tx-batch 16, burst 8" 2, "tx-batch 32, burst 8" 3)
set xrange [-0.5:3.5]
plot "/tmp/perf_lat/001-2.dat" index 0 using 1:2:3:4 with yerrorlines title "RTT p50 us", "/tmp/perf_lat/001-2.dat" index 1 using 1:2:3:4 with yerrorlines title "RTT p99 us"
