set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/003-1.svg"
set title "003: Msegments/s delivered" noenhanced
set xlabel "variant" noenhanced
set ylabel "Mpps" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("direct" 0, "direct GRO" 1, "pipeline" 2, "pipeline GRO" 3)
set xrange [-0.5:3.5]
plot "/tmp/perf_lat/003-1.dat" index 0 using 1:2:3:4 with yerrorlines title "flows=1", "/tmp/perf_lat/003-1.dat" index 1 using 1:2:3:4 with yerrorlines title "flows=1024"
