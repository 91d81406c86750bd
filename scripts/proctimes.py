#!/usr/bin/env python3
"""Time whole processes side by side: elapsed and CPU (user + system).

usage: scripts/proctimes.py ROUNDS 'CMD ...' ['CMD ...' ...]

Each round runs every command once, in the order given, so that commands
compared share the machine's load (BENCHMARKS.md: "sepad grades through
the door"). Elapsed is time.perf_counter around subprocess.run; CPU is
the change of getrusage(RUSAGE_CHILDREN) over the run, which moves much
less with other processes' load than the elapsed time. Output: a
Markdown table with p50 and p99 of each, and the 1-minute load average
before, every 50 rounds and after. Commands are split on spaces; stdout
goes to /dev/null; a command that fails stops the run.
"""
import resource
import subprocess
import sys
import time


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, cmds = int(sys.argv[1]), [c.split() for c in sys.argv[2:]]
    wall = [[] for _ in cmds]
    cpu = [[] for _ in cmds]
    load = [loadavg()]
    for i in range(rounds):
        for k, args in enumerate(cmds):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
            wall[k].append((time.perf_counter() - t) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
        if i % 50 == 49:
            load.append(loadavg())
    load.append(loadavg())

    def pct(s, q):
        s = sorted(s)
        return s[min(int(len(s) * q), len(s) - 1)]

    print("| command | runs | wall p50 | wall p99 | CPU p50 | CPU p99 |")
    print("|---|---|---|---|---|---|")
    for k, args in enumerate(cmds):
        print("| `%s` | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms |" % (
            " ".join(args), rounds, pct(wall[k], .5), pct(wall[k], .99), pct(cpu[k], .5), pct(cpu[k], .99)))
    print("load average (1 min):", " ".join(load))


if __name__ == "__main__":
    main()
