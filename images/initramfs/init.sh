#!/bin/sh
# kregress guest init: `kagent boot` mounts what the workloads need, brings
# up the user-mode network, prints the banner the host waits for and serves
# SSH, all in one process (each busybox program is a fork and exec, tens of
# milliseconds under TCG). This shell stays PID 1: it reaps the orphans the
# workloads leave.
export PATH=/bin:/sbin
/bin/kagent boot >/dev/console 2>&1 &
while true; do sleep 3600; done
