#!/bin/busybox sh
# shellcheck shell=sh
# /init (PID 1) of the initramfs that scripts/vm-run.sh builds.  Runs under busybox sh.
#
# Contract with the guest script (/pidx/guest.sh), see also vm-run.sh --help:
#   - busybox applets on PATH; proc, sysfs, devtmpfs, debugfs (/sys/kernel/debug) mounted;
#     tmpfs at /out (results) and /tmp; cwd /pidx.
#   - env: OUT=/out PIDX_DIR=/pidx PIDX_KO=/pidx/pidx.ko PIDX_ACCEL=tcg|kvm
#     PIDX_KERNEL=<release> PIDX_NCPUS=<online CPUs>; with vm-run.sh --progress also
#     PIDX_PROGRESS=/dev/ttyS1, whose lines the host prints as they come
#   - args: the lines of /pidx/args (one argument per line); stdout and stderr on the console.
# Afterwards: dmesg is appended to /out/dmesg.txt and every regular file under /out is sent
# over the console framed as
#   ==PIDX-FILE-BEGIN <relative path>==
#   <base64 lines>
#   ==PIDX-FILE-END <relative path> <md5 of the file>==
# and then ==PIDX-GUEST-EXIT <status of guest.sh>== and power off.
#
# PID 1 must never exit (the kernel panics), so there is no `set -e` here: every failure is
# reported and the run goes on to the exit marker.

/bin/busybox mkdir -p /proc /sys /dev /out /tmp /bin /sbin /usr/bin /usr/sbin /root
/bin/busybox --install -s
export PATH=/sbin:/usr/sbin:/bin:/usr/bin

say() { echo "pidx-init: $*"; }

mount -t proc proc /proc || say "mount /proc failed"
mount -t sysfs sysfs /sys || say "mount /sys failed"
mount -t devtmpfs devtmpfs /dev || say "mount /dev failed"
mount -t debugfs debugfs /sys/kernel/debug || say "mount debugfs failed"
mount -t tmpfs -o mode=0755 tmpfs /out || say "mount /out failed"
mount -t tmpfs tmpfs /tmp || say "mount /tmp failed"

# From here on PID 1 holds no descriptor of the console: every console writer opens it for
# itself, so the last close (at the end of the framed output) is the one that waits until
# the UART has sent everything (tty_wait_until_sent); without that, poweroff -f can cut the
# tail of the output, exit marker included.
exec </dev/null >/dev/null 2>&1
con=/dev/console

export OUT=/out PIDX_DIR=/pidx PIDX_KO=/pidx/pidx.ko HOME=/root TERM=dumb
PIDX_ACCEL=$(cat /pidx/accel 2>/dev/null)
PIDX_KERNEL=$(cat /pidx/kernel 2>/dev/null)
PIDX_NCPUS=$(nproc)
export PIDX_ACCEL PIDX_KERNEL PIDX_NCPUS
cd /pidx || say "no /pidx" >$con

# vm-run.sh --progress: ttyS1's host end is a plain file, which takes every byte at once.
# Raw, with no flow control and modem lines ignored, so that neither an XOFF nor a
# missing carrier can hold a writer up (the built-in 8250 driver makes the port; devtmpfs
# gives the node, made here should it not).
if [ -e /pidx/progress ]; then
	p=/dev/ttyS1
	[ -c $p ] || mknod $p c 4 65 || say "mknod $p failed" >$con
	if stty -F $p raw -echo clocal -crtscts -ixon -ixoff >$con 2>&1; then
		export PIDX_PROGRESS=$p
	else
		say "stty -F $p failed: no progress port" >$con
	fi
fi

# One argument per line (the host refuses arguments containing a newline); no globbing.
set -f
IFS='
'
# shellcheck disable=SC2046 # splitting on newlines is the point
set -- $(cat /pidx/args 2>/dev/null)
unset IFS
set +f

{
	say "$(uname -r), $PIDX_NCPUS CPUs, accel $PIDX_ACCEL, $(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo) MB RAM, up $(cut -d" " -f1 /proc/uptime) s; running guest.sh $*"
} >$con 2>&1
sh /pidx/guest.sh "$@" </dev/null >$con 2>&1
rc=$?

# Stop whatever the guest script left running (PID 1 is exempt from kill -1): a straggler
# writing to the console would corrupt the frames, and one writing to /out would race them.
kill -9 -1 2>/dev/null
sleep 0.2

dmesg >>/out/dmesg.txt 2>&1

# Only KERN_EMERG messages reach the console from now on, so kernel lines cannot land
# inside the frames (the host also checks every file's md5 and skips non-base64 lines).
echo 1 >/proc/sys/kernel/printk

emit() {
	cd /out || return
	find . -type f | sort | while IFS= read -r f; do
		p=${f#./}
		if [ ! -f "$p" ]; then # a name with a newline in it: cannot be framed by lines
			say "not sending unframeable file name: $p"
			continue
		fi
		sum=$(md5sum "./$p") # ./ so that a name like -x is not an option
		echo "==PIDX-FILE-BEGIN $p=="
		base64 "./$p"
		echo "==PIDX-FILE-END $p ${sum%% *}=="
	done
	echo "==PIDX-GUEST-EXIT $rc=="
}
emit >$con 2>&1

# Belt and braces for the drain above (another console holder would defeat it): wait until
# the UART transmit counter stops moving, at most about 5 s.
last='' n=0
while [ $n -lt 50 ]; do
	now=$(sed -n 's/^0:.* tx:\([0-9]*\).*/\1/p' /proc/tty/driver/serial 2>/dev/null)
	[ -n "$now" ] && [ "$now" = "$last" ] && break
	last=$now n=$((n + 1))
	usleep 100000
done
sync
poweroff -f
# Not reached unless poweroff failed; never let PID 1 exit.
while :; do sleep 1000; done
