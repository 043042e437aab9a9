set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/001-guest-1.svg"
set title "001 (guest): guest interrupts per frame" noenhanced
set xlabel "variant" noenhanced
set ylabel "guest irqs/frame" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("tx-batch 1" 0, "tx-batch 16, 50 us" 1, "tx-batch 16, 200 us" 2, "tx-batch 32, 50 us" 3, "tx-batch 32, 200 us" 4, "testpmd-csum-gro" 5)
set xrange [-0.5:5.5]
plot "/tmp/perf_lat/001-guest-1.dat" index 0 using 1:2:3:4 with yerrorlines title "workload=udp-in 50M", "/tmp/perf_lat/001-guest-1.dat" index 1 using 1:2:3:4 with yerrorlines title "workload=tcp-in 1", "/tmp/perf_lat/001-guest-1.dat" index 2 using 1:2:3:4 with yerrorlines title "workload=tcp-out 1", "/tmp/perf_lat/001-guest-1.dat" index 3 using 1:2:3:4 with yerrorlines title "workload=rr 1", "/tmp/perf_lat/001-guest-1.dat" index 4 using 1:2:3:4 with yerrorlines title "workload=rr 8", "/tmp/perf_lat/001-guest-1.dat" index 5 using 1:2:3:4 with yerrorlines title "workload=rr 1 under udp-in 50M"
