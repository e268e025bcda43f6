#!/bin/sh
# kregress guest init: mount what the workloads need, bring up the
# user-mode network, start kagent's SSH server, then keep PID 1 alive.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# CONFIG_DEVTMPFS_MOUNT does not apply to an initramfs: mount it here.
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing
echo "kregress-init: up $(cut -d' ' -f1 /proc/uptime)s cpus=$(cat /sys/devices/system/cpu/online)"
ip link set lo up
ip link set eth0 up
# QEMU user networking: the guest is always 10.0.2.15, the gateway 10.0.2.2.
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
# kregress.nossh on the cmdline leaves SSH down: the test of a guest that
# never answers uses it.
if ! grep -q kregress.nossh /proc/cmdline; then
	/bin/kagent serve -listen :22 </dev/null >/dev/console 2>&1 &
fi
while true; do sleep 3600; done
