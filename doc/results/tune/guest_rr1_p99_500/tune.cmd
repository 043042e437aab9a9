# dpdk-vfwd settings from bench/tune.py --p99-us 500.0 (a QEMU Linux guest and a tap, rr 1, latency = its round trip), commit 99fbdcc.
#   dpdk-vfwd ... -- --cmdline-file tune.cmd [-i]
# Each knob with its kernel twin for vhost_net + tap above it.
# kernel: NAPI with interrupts: the default; see napi_defer_hard_irqs and gro_flush_timeout
set rx-mode napi
# kernel: sysctl net.core.busy_poll=0 net.core.busy_read=0
set busy-poll-us 0
# kernel: echo 32 > /sys/class/net/tapX/napi_defer_hard_irqs
set defer-polls 32
# kernel: gro_flush_timeout, the re-poll timer: echo $((10000 * 1000)) > /sys/class/net/tapX/gro_flush_timeout
set sleep-max-us 10000
# kernel: VHOST_NET_BATCH (128; a constant of drivers/vhost/net.c, 64)
set burst 128
# kernel: ethtool -C tapX rx-frames 1 (vhost_net tx batching)
set tx-batch 1
# kernel: none: tun sends a batch when vhost_net has no more (MSG_MORE); 50 us here
set tx-flush-us 50
# kernel: the driver's NAPI weight (64; tun's is NAPI_POLL_WEIGHT, 64); sysctl net.core.dev_weight for the backlog
set napi-weight 64
start
