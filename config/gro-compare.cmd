# GRO off, light and heavy on the same traffic, two seconds each, stats as
# JSON after each step. Meant for TCP traffic toward the VM (wire -> vm).
start
set gro off
clear fwd stats
sleep 2
show fwd stats json
set gro on
set gro mode light
clear fwd stats
sleep 2
show fwd stats json
set gro mode heavy
set gro flush 50
clear fwd stats
sleep 2
show fwd stats json
quit
