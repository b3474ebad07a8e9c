#!/usr/bin/python3
"""Start a command with SIGINT, SIGTERM and SIGHUP at their defaults, signal it, time its exit.

usage: signal_run.py DELAY SIGNAL [SECOND GAP] -- CMD...
Sends SIGNAL (INT, TERM, HUP) DELAY seconds after the start, and SECOND GAP seconds after it if
given. The command's stdout and stderr go to stdout.txt and stderr.txt in the current directory.
Prints "rc=N elapsed=S sigign=HEX": the exit status as a shell reports it (128+N when a signal
ended it), seconds from the first signal to the exit, and the command's ignored-signal mask
(/proc/PID/status SigIgn) shortly after it started. A background job of a shell without job
control starts with SIGINT ignored; the command here never does.
"""
import signal
import subprocess
import sys
import time

args = sys.argv[1:]
cut = args.index("--")
opts, cmd = args[:cut], args[cut + 1:]
delay, first = float(opts[0]), getattr(signal, "SIG" + opts[1])
second = getattr(signal, "SIG" + opts[2]) if len(opts) > 2 else None
gap = float(opts[3]) if len(opts) > 3 else 0.0

def defaults():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)

out, err = open("stdout.txt", "wb"), open("stderr.txt", "wb")
start = time.monotonic()
p = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=defaults)
time.sleep(min(0.05, delay))
try:
    sigign = next(l.split()[1] for l in open(f"/proc/{p.pid}/status") if l.startswith("SigIgn:"))
except (OSError, StopIteration):
    sigign = "gone"
time.sleep(max(0.0, delay - (time.monotonic() - start)))
t0 = time.monotonic()
if p.poll() is None:
    p.send_signal(first)
    if second is not None:
        time.sleep(gap)
        if p.poll() is None:
            p.send_signal(second)
try:  # a command that never exits fails its test (killed: rc=137) instead of hanging the suite
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
elapsed = time.monotonic() - t0
print(f"rc={128 - rc if rc < 0 else rc} elapsed={elapsed:.3f} sigign={sigign}")
