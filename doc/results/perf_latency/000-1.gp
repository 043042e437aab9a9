set terminal svg size 800,480 dynamic enhanced font "sans,11"
set output "/tmp/perf_lat/000-1.svg"
set title "000: worker CPU % at 100 k frames/s, 12 flows" noenhanced
set xlabel "write" noenhanced
set ylabel "CPU %" noenhanced
set key top left noenhanced box opaque
set grid
set yrange [0:*]
set xtics ("64B" 0, "128B" 1, "4KB" 2)
set xrange [-0.5:2.5]
plot "/tmp/perf_lat/000-1.dat" index 0 using 1:2:3:4 with yerrorlines title "before (poll)", "/tmp/perf_lat/000-1.dat" index 1 using 1:2:3:4 with yerrorlines title "after (napi)"
