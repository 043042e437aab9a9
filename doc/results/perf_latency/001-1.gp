set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/001-1.svg"
set title "001: Mpps and cycles per packet (UDP 64 B)" noenhanced
set xlabel "variant" noenhanced
set ylabel "Mpps; cycles/pkt" noenhanced
set key top left noenhanced box opaque
set grid
set logscale y 10
set xtics ("tx-batch 1, burst 32" 0, "tx-batch 1, burst 8" 1, "tx-batch 16, burst 8" 2, "tx-batch 32, burst 8" 3)
set xrange [-0.5:3.5]
plot "/tmp/perf_lat/001-1.dat" index 0 using 1:2:3:4 with yerrorlines title "Mpps", "/tmp/perf_lat/001-1.dat" index 1 using 1:2:3:4 with yerrorlines title "cycles/pkt"
