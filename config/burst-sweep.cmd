# Burst sweep: forward at burst 1, 16, 32 and 64, one second each, and print
# the forwarding stats of each step as one JSON line (counters cleared at
# each step, so every line is that step alone).
#
#   dpdk-vfwd -l 0-1 --vdev ... -- --cmdline-file config/burst-sweep.cmd
#
# Lines starting with '-' may fail without stopping the script.
start
set burst 1
clear fwd stats
sleep 1
show fwd stats json
set burst 16
clear fwd stats
sleep 1
show fwd stats json
set burst 32
clear fwd stats
sleep 1
show fwd stats json
set burst 64
clear fwd stats
sleep 1
show fwd stats json
quit
