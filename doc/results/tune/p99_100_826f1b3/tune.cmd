# dpdk-vfwd settings from bench/tune.py --p99-us 100.0 (dpdk-vfwd-gen UDP 64 B vm->wire at 1000000 pps, latency one-way), commit 826f1b3.
#   dpdk-vfwd ... -- --cmdline-file tune.cmd [-i]
# Each knob with its kernel twin for vhost_net + tap above it.
# kernel: NAPI with interrupts: the default; see napi_defer_hard_irqs and gro_flush_timeout
set rx-mode napi
# kernel: sysctl net.core.busy_poll=0 net.core.busy_read=0
set busy-poll-us 0
# kernel: echo 4 > /sys/class/net/tapX/napi_defer_hard_irqs
set defer-polls 4
# kernel: gro_flush_timeout, the re-poll timer: echo $((50 * 1000)) > /sys/class/net/tapX/gro_flush_timeout
set sleep-max-us 50
# kernel: napi_defer_hard_irqs > 0 with gro_flush_timeout: interrupts stay masked while the timer re-polls
set nap-wake timer
# kernel: VHOST_NET_BATCH (32; a constant of drivers/vhost/net.c, 64)
set burst 32
# kernel: ethtool -C tapX rx-frames 1 (vhost_net tx batching)
set tx-batch 1
# kernel: none: tun sends a batch when vhost_net has no more (MSG_MORE); 50 us here
set tx-flush-us 50
# kernel: vhost_net's way: a batch goes when the ring has no more
set tx-hold-idle off
# kernel: the driver's NAPI weight (64; tun's is NAPI_POLL_WEIGHT, 64); sysctl net.core.dev_weight for the backlog
set napi-weight 64
start
